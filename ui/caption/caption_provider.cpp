// SPDX-License-Identifier: MIT
#include "caption/caption_provider.h"

#include "core/error.h"
#include "service/model_registry.h"
#include "tokenizer/tokenizer_loader.h"

namespace attn::ui {

namespace {

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
            m_run = std::make_unique<CaptionRun>(m_captioner.model, m_encoding, request.options);
        else if (request.action == Action::Step)
            m_run->step();
        else
            m_run->back();
        return captionState(m_captioner, *m_run, m_image);
    }

private:
    static constexpr const char* kNoText
        = "an image-to-text model captions images: open one in the Caption tab (it has no text input)";

    void open(const QString& path, const ProgressFn& progress)
    {
        CaptionImage image = loadCaptionImage(m_captioner.model->imageEncoder(), path);
        const int total = static_cast<int>(m_captioner.model->config().numLayers) + 1;
        if (!progress(0, total)) throw Cancelled();
        ForwardOptions options;
        options.backend = backend();
        options.layerDone = layerProgress(progress, 0, total);
        EncoderInput input;
        input.pixels = image.pixels;
        m_encoding = m_captioner.model->encode(input, options);
        m_image = std::move(image);
    }

    Captioner m_captioner;
    ModelSummary m_summary;
    std::shared_ptr<const EncoderOutput> m_encoding;
    std::unique_ptr<CaptionRun> m_run;
    CaptionImage m_image;
};

} // namespace

std::unique_ptr<AttentionProvider> openCaptionProvider(
    const ModelSource& source, ModelRegistry& models, const ProgressFn& progress)
{
    return std::make_unique<CaptionProvider>(source, models, progress);
}

} // namespace attn::ui
