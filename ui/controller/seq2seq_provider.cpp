// SPDX-License-Identifier: MIT
#include "controller/seq2seq_provider.h"

#include "core/error.h"
#include "session/translator.h"

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
    Seq2SeqProvider(const ModelSource& source, const ProgressFn& progress)
        : m_translator(source.folder) {
        checkpoint(progress, 3);
        m_model = m_translator.transformer();
        if (!m_model) throw Error(source.folder, "not an encoder-decoder transformer");
        m_summary = summarizeModel(source, "cpu (reference attention core)");
    }

    const ModelSummary& summary() const override { return m_summary; }

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
        run->source = chips(source, source.ids.size());
        run->target = decoderInputs(m_translator.target(targetText));
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

    /// Teacher forcing feeds the start token and every target piece but the last (EOS): row j predicts piece j.
    std::vector<TokenChip> decoderInputs(const AlignedSide& target) const {
        const AlignedSide start = m_translator.generated({ m_translator.startToken() });
        std::vector<TokenChip> out { { start.pieces[0], start.ids[0], true } };
        for (TokenChip& chip : chips(target, target.ids.empty() ? 0 : target.ids.size() - 1))
            out.push_back(std::move(chip));
        return out;
    }

    Translator m_translator;
    std::shared_ptr<const EncoderDecoderModel> m_model;
    ModelSummary m_summary;
};

} // namespace

std::unique_ptr<AttentionProvider> openSeq2SeqProvider(const ModelSource& source, const ProgressFn& progress) {
    return std::make_unique<Seq2SeqProvider>(source, progress);
}

} // namespace attn::ui
