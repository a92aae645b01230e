// SPDX-License-Identifier: MIT
#include "controller/attention_provider.h"
#include "controller/seq2seq_provider.h"

#include "caption/caption_provider.h"
#include "core/error.h"
#include "model/model_loader.h"
#include "model/model_source.h"
#include "model/rnn_seq2seq.h"
#include "session/session.h"
#include "tokenizer/tokenizer_loader.h"

namespace attn::ui {

SnapshotPtr RunResult::view(AttentionKind kind) const {
    for (const auto& [k, snapshot] : views)
        if (k == kind) return snapshot;
    return nullptr;
}

CaptionPtr AttentionProvider::caption(const CaptionRequest&, const ProgressFn&) {
    throw Error("this model does not caption images: open an image-to-text model");
}

std::function<bool(int64_t, int64_t)> layerProgress(const ProgressFn& progress, int first, int total) {
    return [progress, first, total](int64_t done, int64_t) { return progress(first + static_cast<int>(done), total); };
}

namespace {

class EngineProvider : public AttentionProvider {
public:
    EngineProvider(const ModelSource& source, const ProgressFn& progress) {
        checkpoint(progress, 1);
        // The tokenizer first: it is cheap, and a missing one should not cost a weight load.
        m_tokenizer = loadTokenizer(source);
        checkpoint(progress, 2);
        m_model = loadModel(source);
        checkpoint(progress, 3);
        m_session = std::make_unique<Session>(m_model);
        // The session runs the CPU attention core (ForwardOptions::backend is null).
        m_summary = summarizeModel(source, "cpu (reference attention core)");
    }

    const ModelSummary& summary() const override { return m_summary; }
    const Session* session() const override { return m_session->length() > 0 ? m_session.get() : nullptr; }

    std::vector<TokenChip> tokenize(const std::string& text, bool target) override {
        if (target) throw Error("this model has no target side: it is not an encoder-decoder");
        return chips(m_tokenizer->encode(text));
    }

    RunPtr runPair(const std::string& text, const std::string& target, const ProgressFn& progress) override {
        if (!target.empty()) throw Error("this model takes one input: it is not an encoder-decoder");
        const std::vector<Token> tokens = m_tokenizer->encode(text);
        if (tokens.empty()) throw Error("the input has no tokens: type some text");
        // Steps: 1 tokenized, then one per layer, then the statistics.
        const int layers = static_cast<int>(m_model->config().numLayers), total = layers + 2;
        if (!progress(1, total)) throw Cancelled();
        m_session->reset();
        ForwardOptions options = m_session->options();
        options.backend = backend();
        options.layerDone = layerProgress(progress, 1, total);
        m_session->setOptions(options);
        const auto result = m_session->prefill(tokenIds(tokens));
        MaskSpec mask;
        if (m_session->isDecoder()) {
            mask.causal = true;
            mask.slidingWindow = m_model->config().slidingWindow;
        }
        auto run = std::make_shared<RunResult>();
        run->text = text;
        run->source = chips(tokens);
        run->routerLogits = result->routerLogits;
        run->expertsPerToken = m_model->config().expertsPerToken;
        run->views.emplace_back(AttentionKind::Self,
            std::make_shared<const AttentionSnapshot>(
                run->source, result->attention, m_model->config().numKvHeads, std::move(mask)));
        if (!progress(total, total)) throw Cancelled();
        return run;
    }

private:
    static void checkpoint(const ProgressFn& progress, int step) {
        if (!progress(step, 4)) throw Cancelled();
    }

    std::vector<TokenChip> chips(const std::vector<Token>& tokens) const {
        std::vector<TokenChip> out;
        out.reserve(tokens.size());
        for (const Token& t : tokens)
            out.push_back({ m_tokenizer->tokenText(t.id), t.id, t.special });
        return out;
    }

    ModelSummary m_summary;
    std::unique_ptr<Tokenizer> m_tokenizer;
    std::shared_ptr<Model> m_model;
    std::unique_ptr<Session> m_session;
};

} // namespace

std::unique_ptr<AttentionProvider> openEngineProvider(const std::string& path, const ProgressFn& progress) {
    if (isRnnSeq2SeqFolder(path)) return openRnnSeq2SeqProvider(path, progress);
    const ModelSource source = probeModel(path);
    if (source.config.kind == ModelKind::EncoderDecoder) return openSeq2SeqProvider(source, progress);
    if (source.config.kind == ModelKind::ImageToText) return openCaptionProvider(source, progress);
    return std::make_unique<EngineProvider>(source, progress);
}

} // namespace attn::ui
