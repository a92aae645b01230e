// SPDX-License-Identifier: MIT
#include "caption/caption_provider.h"

#include "core/error.h"
#include "service/model_registry.h"
#include "tokenizer/tokenizer_loader.h"

#include <algorithm>

namespace attn::ui {

namespace {

/// Whether two runs' captions can differ only through their head masks (the unmasked caption of one is the other's).
bool sameButMask(const CaptionOptions& a, const CaptionOptions& b)
{
    return a.strategy == b.strategy && a.beamWidth == b.beamWidth && a.maxNewTokens == b.maxNewTokens
        && a.sampling.temperature == b.sampling.temperature && a.sampling.topP == b.sampling.topP
        && a.sampling.topK == b.sampling.topK && a.sampling.seed == b.sampling.seed;
}

/// The model from the engine's registry (the Mechanisms tab's heads read the same copy) and its tokenizer.
Captioner registryCaptioner(const ModelSource& source, ModelRegistry& models)
{
    Captioner c;
    c.model = std::dynamic_pointer_cast<const VisionEncoderDecoderModel>(models.model(source));
    if (!c.model) throw Error(source.folder, "is not an image-to-text model");
    c.tokenizer = loadTokenizer(source);
    return c;
}

class CaptionProvider : public AttentionProvider {
public:
    CaptionProvider(const ModelSource& source, ModelRegistry& models, const ProgressFn& progress)
        : m_captioner(registryCaptioner(source, models))
        , m_summary(summarizeModel(source, "cpu (reference attention core)"))
    {
        if (!progress(3, 4)) throw Cancelled();
    }

    const ModelSummary& summary() const override { return m_summary; }

    std::vector<TokenChip> tokenize(const std::string&, bool) override { throw Error(kNoText); }
    RunPtr runPair(const std::string&, const std::string&, const ProgressFn&) override { throw Error(kNoText); }

    CaptionPtr caption(const CaptionRequest& request, const ProgressFn& progress) override
    {
        using Action = CaptionRequest::Action;
        if (request.action == Action::Open) open(request.image, progress);
        if (!m_encoding) throw Error("open an image to caption first");
        if (request.action == Action::Open || request.action == Action::Restart)
            start(request.options, request.replay, progress);
        else if (request.action == Action::Step)
            m_run->step();
        else
            m_run->back();
        return captionState(m_captioner, *m_run, m_image, m_comparison);
    }

private:
    static constexpr const char* kNoText
        = "an image-to-text model captions images: open one in the Caption tab (it has no text input)";

    void open(const QString& path, const ProgressFn& progress)
    {
        CaptionImage image = loadCaptionImage(m_captioner.model->imageEncoder(), path);
        m_encoding = encode(image.pixels, {}, progress);
        m_masked = {};
        m_unmasked.reset();
        m_image = std::move(image);
    }

    std::shared_ptr<const EncoderOutput> encode(
        const Tensor& pixels, const Tensor& headMask, const ProgressFn& progress)
    {
        const int total = static_cast<int>(m_captioner.model->config().numLayers) + 1;
        if (!progress(0, total)) throw Cancelled();
        ForwardOptions options;
        options.backend = backend();
        options.layerDone = layerProgress(progress, 0, total);
        return encodeImage(*m_captioner.model, pixels, headMask, options);
    }

    /// A fresh run under `options` (its head mask on the encoder too), stepped to `replay` words; with a mask also
    /// both whole captions and each word's unmasked cross-attention, for the difference views.
    void start(const CaptionOptions& options, int64_t replay, const ProgressFn& progress)
    {
        m_comparison.reset();
        if (options.headMask.empty()) {
            m_run = std::make_unique<CaptionRun>(m_captioner.model, m_encoding, options);
        } else {
            if (!m_masked.encoding || m_masked.mask.storage() != options.headMask.storage()
                || m_masked.mask.shape() != options.headMask.shape())
                m_masked = { options.headMask, encode(m_image.pixels, options.headMask, progress) };
            // The unmasked encoding too: each word's cross-attention without the mask, for the difference map.
            m_run = std::make_unique<CaptionRun>(m_captioner.model, m_masked.encoding, options, m_encoding);
            // Each Apply and Undo changes only the mask: the unmasked caption of this image stays what it was.
            if (!m_unmasked || !sameButMask(m_unmasked->options, options)) {
                CaptionOptions unmasked = options;
                unmasked.headMask = {};
                m_unmasked = UnmaskedCaption { unmasked, wholeCaption(m_encoding, unmasked, progress) };
            }
            m_comparison = CaptionComparison { m_unmasked->text, wholeCaption(m_masked.encoding, options, progress) };
        }
        for (int64_t i = 0; i < replay; ++i)
            if (!m_run->step()) break;
    }

    CaptionText wholeCaption(
        std::shared_ptr<const EncoderOutput> encoding, const CaptionOptions& options, const ProgressFn& progress)
    {
        CaptionRun run(m_captioner.model, std::move(encoding), options);
        const auto total = static_cast<int>(options.maxNewTokens);
        for (int i = 0; run.step(); ++i)
            if (!progress(std::min(i + 1, total), total)) throw Cancelled();
        return captionText(m_captioner, run);
    }

    /// The encoding under the last head mask asked for (stepping and undo ask for the same one again).
    struct MaskedEncoding {
        Tensor mask;
        std::shared_ptr<const EncoderOutput> encoding;
    };

    /// The whole caption without a mask, and the options it was run with.
    struct UnmaskedCaption {
        CaptionOptions options;
        CaptionText text;
    };

    Captioner m_captioner;
    ModelSummary m_summary;
    std::shared_ptr<const EncoderOutput> m_encoding;
    MaskedEncoding m_masked;
    std::optional<UnmaskedCaption> m_unmasked;
    std::unique_ptr<CaptionRun> m_run;
    std::optional<CaptionComparison> m_comparison;
    CaptionImage m_image;
};

} // namespace

std::unique_ptr<AttentionProvider> openCaptionProvider(
    const ModelSource& source, ModelRegistry& models, const ProgressFn& progress)
{
    return std::make_unique<CaptionProvider>(source, models, progress);
}

} // namespace attn::ui
