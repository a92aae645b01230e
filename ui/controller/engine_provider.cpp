// SPDX-License-Identifier: MIT
#include "controller/attention_provider.h"

#include "core/error.h"
#include "model/model_loader.h"
#include "model/model_source.h"
#include "session/session.h"
#include "tokenizer/tokenizer_loader.h"

namespace attn::ui {

namespace {

class EngineProvider : public AttentionProvider {
public:
    EngineProvider(const std::string& path, const ProgressFn& progress) {
        const ModelSource source = probeModel(path);
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

    std::vector<TokenChip> tokenize(const std::string& text) override { return chips(m_tokenizer->encode(text)); }

    SnapshotPtr run(const std::string& text, const ProgressFn& progress) override {
        const std::vector<Token> tokens = m_tokenizer->encode(text);
        if (tokens.empty()) throw Error("the input has no tokens: type some text");
        if (!progress(1, 3)) throw Cancelled();
        m_session->reset();
        const auto result = m_session->prefill(tokenIds(tokens));
        if (!progress(2, 3)) throw Cancelled();
        MaskSpec mask;
        if (m_session->isDecoder()) {
            mask.causal = true;
            mask.slidingWindow = m_model->config().slidingWindow;
        }
        return std::make_shared<const AttentionSnapshot>(
            chips(tokens), result->attention, m_model->config().numKvHeads, std::move(mask));
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
    return std::make_unique<EngineProvider>(path, progress);
}

} // namespace attn::ui
