// SPDX-License-Identifier: MIT
#include "controller/seq2seq_provider.h"

#include "align/alignment_run.h"
#include "core/error.h"
#include "session/translator.h"

#include <filesystem>
#include <set>

namespace attn::ui {

namespace {

std::vector<TokenChip> chips(const AlignedSide& side, size_t count) {
    std::vector<TokenChip> out;
    for (size_t i = 0; i < count; ++i)
        out.push_back({ side.pieces[i], side.ids[i], side.special[i] });
    return out;
}

class Seq2SeqProvider : public AttentionProvider {
public:
    /// `summary` describes the model at `folder`: a transformer encoder-decoder or an RNN seq2seq model.
    Seq2SeqProvider(const std::string& folder, ModelRegistry& models, ModelSummary summary, const ProgressFn& progress)
        : m_translator(folder, models)
        , m_summary(std::move(summary)) {
        checkpoint(progress, 3);
        m_model = m_translator.transformer();
        if (const auto& rnn = m_translator.rnn()) m_summary.config = rnn->config(); // loaded once, here
    }

    const ModelSummary& summary() const override { return m_summary; }
    const std::shared_ptr<const EncoderDecoderModel>& transformer() const { return m_model; }

    std::vector<TokenChip> tokenize(const std::string& text, bool target) override {
        if (!target) {
            const AlignedSide side = m_translator.source(text);
            return chips(side, side.ids.size());
        }
        return decoderInputs(m_translator.target(text));
    }

    RunPtr runPair(const std::string& sourceText, const std::string& targetText, const ProgressFn& progress) override {
        const AlignedSide source = m_translator.source(sourceText);
        if (source.ids.empty()) throw Error("the source has no tokens: type some text");
        auto run = std::make_shared<RunResult>();
        run->text = sourceText;
        run->source = chips(source, source.ids.size());
        run->target = decoderInputs(m_translator.target(targetText));
        if (!m_model) {
            if (!progress(1, 2)) throw Cancelled();
            run->views.emplace_back(AttentionKind::Cross,
                std::make_shared<const AttentionSnapshot>(run->source,
                    rnnCrossAttention(sourceText, targetText, source), 0, MaskSpec {}, run->target));
            return run;
        }
        std::vector<int64_t> decoderIds;
        for (const TokenChip& chip : run->target)
            decoderIds.push_back(chip.id);

        // Steps: 1 tokenized, one per encoder layer, one per decoder layer.
        const auto encoderLayers = static_cast<int>(m_model->config().numLayers);
        const int total = 1 + encoderLayers + static_cast<int>(m_model->decoderLayers());
        if (!progress(1, total)) throw Cancelled();
        ForwardOptions options;
        options.backend = backend();
        options.layerDone = layerProgress(progress, 1, total);
        options.cancelRequested = cancelCheck(progress);
        const auto encoding = m_model->encode(EncoderInput { source.ids, {} }, options);
        options.layerDone = layerProgress(progress, 1 + encoderLayers, total);
        KvCache cache = m_model->newDecoderCache();
        Seq2SeqStepResult decoded = m_model->decode(*encoding, cache, decoderIds, options);

        MaskSpec causal;
        causal.causal = true;
        run->views.emplace_back(AttentionKind::EncoderSelf,
            std::make_shared<const AttentionSnapshot>(run->source, encoding->attention, 0, MaskSpec {}));
        run->views.emplace_back(AttentionKind::DecoderSelf,
            std::make_shared<const AttentionSnapshot>(run->target, std::move(decoded.attention), 0, causal));
        run->views.emplace_back(AttentionKind::Cross,
            std::make_shared<const AttentionSnapshot>(
                run->source, std::move(decoded.crossAttention), 0, MaskSpec {}, run->target));
        return run;
    }

private:
    static void checkpoint(const ProgressFn& progress, int step) {
        if (!progress(step, 4)) throw Cancelled();
    }

    /// Per layer [heads, target pieces, source pieces] of the RNN's teacher forcing (the alignment tab's run; an empty
    /// target feeds the start token alone). The tutorial's location attention has fixed padded keys: the first S are
    /// the source's.
    std::vector<Tensor> rnnCrossAttention(
        const std::string& sourceText, const std::string& targetText, const AlignedSide& source) const {
        const std::vector<Tensor> steps = targetText.empty()
            ? std::vector<Tensor> { m_translator.decoder(source.ids)->step(m_translator.startToken()).crossAttention }
            : runAlignment(m_translator, sourceText, targetText, 0)->hypotheses.front().steps;
        const int64_t layers = steps.front().dim(0), heads = steps.front().dim(1);
        const auto T = static_cast<int64_t>(steps.size()), S = static_cast<int64_t>(source.ids.size());
        if (steps.front().dim(2) < S)
            throw Error(m_summary.path, "the attention row is shorter than the source (" + std::to_string(S) + ")");
        std::vector<Tensor> out;
        for (int64_t l = 0; l < layers; ++l) {
            Tensor layer({ heads, T, S });
            for (int64_t h = 0; h < heads; ++h)
                for (int64_t t = 0; t < T; ++t)
                    for (int64_t s = 0; s < S; ++s)
                        layer.at({ h, t, s }) = steps[static_cast<size_t>(t)].at({ l, h, s });
            out.push_back(std::move(layer));
        }
        return out;
    }

    /// Teacher forcing feeds the start token and every target piece but the last (EOS): row j predicts piece j.
    std::vector<TokenChip> decoderInputs(const AlignedSide& target) const {
        const AlignedSide start = m_translator.generated({ m_translator.startToken() });
        std::vector<TokenChip> out { { start.pieces[0], start.ids[0], true } };
        for (TokenChip& chip : chips(target, target.ids.empty() ? 0 : target.ids.size() - 1))
            out.push_back(std::move(chip));
        return out;
    }

    Translator m_translator;
    ModelSummary m_summary;
    std::shared_ptr<const EncoderDecoderModel> m_model; ///< null for an RNN seq2seq model
};

} // namespace

std::unique_ptr<AttentionProvider> openSeq2SeqProvider(
    const ModelSource& source, ModelRegistry& models, const ProgressFn& progress) {
    auto provider = std::make_unique<Seq2SeqProvider>(
        source.folder, models, summarizeModel(source, "cpu (reference attention core)"), progress);
    if (!provider->transformer()) throw Error(source.folder, "not an encoder-decoder transformer");
    return provider;
}

std::unique_ptr<AttentionProvider> openRnnSeq2SeqProvider(
    const std::string& folder, ModelRegistry& models, const ProgressFn& progress) {
    // The summary reads the weight headers of every file of the layout (one, or the tutorial's two).
    ModelSummary summary;
    std::set<std::string> dtypes;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        if (entry.path().extension() != ".safetensors") continue;
        const ModelSummary file
            = summarizeModel(ModelSource { ModelFormat::HfFolder, folder, "", entry.path().string(), {} }, "");
        summary.parameters += file.parameters;
        dtypes.insert(file.dtype);
    }
    for (const std::string& d : dtypes)
        summary.dtype += (summary.dtype.empty() ? "" : ", ") + d;
    summary.path = folder;
    summary.format = "RNN seq2seq folder";
    summary.backend = "cpu (RNN reference)";
    return std::make_unique<Seq2SeqProvider>(folder, models, std::move(summary), progress);
}

} // namespace attn::ui
