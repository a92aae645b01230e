// SPDX-License-Identifier: MIT
#include "controller/attention_provider.h"
#include "controller/seq2seq_provider.h"
#include "attention_source/summary_collector.h"

#include "caption/caption_provider.h"
#include "core/error.h"
#include "model/model_source.h"
#include "model/family_registry.h"
#include "service/model_registry.h"
#include "session/long_input.h"
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

std::function<bool()> cancelCheck(const ProgressFn& progress) {
    return [progress] { return !progress(-1, -1); };
}

std::function<bool(int64_t, int64_t)> layerProgress(const ProgressFn& progress, int first, int total) {
    return [progress, first, total](int64_t done, int64_t) { return progress(first + static_cast<int>(done), total); };
}

namespace {

// A run whose probabilities (every layer and head) would take more than this keeps no matrix: its views read tiles,
// overviews and statistics derived from the stored queries and keys (a 12 x 12 model at 4,096 tokens would need
// 9.7 GB). Below it the matrices are kept, which is cheaper for short inputs.
constexpr uint64_t kMaterializeBytes = uint64_t(256) << 20;

class EngineProvider : public AttentionProvider {
public:
    EngineProvider(const ModelSource& source, ModelRegistry& models, const ProgressFn& progress)
        : m_models(models) {
        checkpoint(progress, 1);
        // The tokenizer first: it is cheap, and a missing one should not cost a weight load.
        m_tokenizer = loadTokenizer(source);
        checkpoint(progress, 2);
        m_model = m_models.model(source);
        m_modelSource = source;
        checkpoint(progress, 3);
        m_session = std::make_unique<Session>(m_model);
        // The session runs the CPU attention core (ForwardOptions::backend is null).
        m_summary = summarizeModel(source, "cpu (reference attention core)");
    }

    const ModelSummary& summary() const override { return m_summary; }

    std::vector<TokenChip> tokenize(const std::string& text, bool target) override {
        if (target) throw Error("this model has no target side: it is not an encoder-decoder");
        return chips(m_tokenizer->encode(text));
    }

    RunPtr runPair(const std::string& text, const std::string& target, const ProgressFn& progress) override {
        if (!target.empty()) throw Error("this model takes one input: it is not an encoder-decoder");
        std::vector<Token> tokens = m_tokenizer->encode(text);
        if (tokens.empty()) throw Error("the input has no tokens: type some text");
        auto run = std::make_shared<RunResult>();
        const std::shared_ptr<const Model> model = modelFor(static_cast<int64_t>(tokens.size()), tokens, run->notice);
        const ModelConfig& c = model->config();
        const auto n = static_cast<uint64_t>(tokens.size());
        // (Models whose scores the tiles cannot follow are captured whole, whatever the size.)
        const bool derived = static_cast<uint64_t>(c.numLayers * c.numHeads) * n * n * sizeof(float) > kMaterializeBytes
            && Session::canDeriveAttention(c);
        // Steps: 1 tokenized, then one per layer, then the snapshot. A derived run's head statistics are streamed
        // afterwards, head by head (EngineWorker), so the first head is on screen as soon as the forward is done.
        const int layers = static_cast<int>(c.numLayers), total = layers + 2;
        if (!progress(1, total)) throw Cancelled();
        ForwardOptions options;
        options.backend = backend();
        options.layerDone = layerProgress(progress, 1, total);
        options.cancelRequested = cancelCheck(progress);
        options.wantAttention = !derived;
        options.wantQueryKeys = derived;
        options.lastLogitsOnly = true; // the views never read logits
        run->text = text;
        run->source = chips(tokens);
        run->expertsPerToken = c.expertsPerToken;
        MaskSpec mask;
        if (derived) {
            // A session of its own that nothing drives after this run: the snapshot's source keeps it and reads it
            // from the GUI thread. Tiles are computed by the CPU core there (the backend belongs to this thread).
            // The forward's own probabilities give every head's statistics and thumbnail on the CPU core; heads a
            // backend's pass does not report are streamed afterwards (EngineWorker).
            SummaryCollector summaries(c.numLayers, c.numHeads, static_cast<int64_t>(n), Session::decoderMask(c));
            ForwardOptions observed = options;
            observed.observeAttention = [&summaries](int64_t layer, int64_t head, int64_t query, int64_t rows,
                                            const float* p) { summaries.add(layer, head, query, rows, p); };
            auto session = std::make_shared<Session>(model, observed);
            run->routerLogits = session->prefill(tokenIds(tokens))->routerLogits;
            ForwardOptions cpu = options;
            cpu.backend = nullptr;
            cpu.layerDone = nullptr; // this run's progress and cancel belong to the engine thread, not to later reads
            cpu.cancelRequested = nullptr;
            session->setOptions(cpu);
            const auto source = session->attentionSource(session);
            summaries.deliver(*source);
            run->views.emplace_back(AttentionKind::Self, std::make_shared<const AttentionSnapshot>(run->source, source));
        } else {
            m_session = std::make_unique<Session>(model, options);
            const auto result = m_session->prefill(tokenIds(tokens));
            run->routerLogits = result->routerLogits;
            if (m_session->isDecoder()) mask = Session::decoderMask(c);
            run->views.emplace_back(AttentionKind::Self,
                std::make_shared<const AttentionSnapshot>(run->source, result->attention, c.numKvHeads,
                    std::move(mask), std::vector<TokenChip> {}, AttentionSnapshot::Stats::Compute, layerWindows(c)));
        }
        if (!progress(total, total)) throw Cancelled();
        return run;
    }

private:
    static void checkpoint(const ProgressFn& progress, int step) {
        if (!progress(step, 4)) throw Cancelled();
    }

    /// The model to run `n` tokens on, never only refusing a long input (session/long_input.h): a rotary decoder is
    /// reloaded with its position limit raised, other models keep the last tokens that fit. `notice` says what
    /// happened.
    std::shared_ptr<const Model> modelFor(int64_t n, std::vector<Token>& tokens, std::string& notice) {
        const LongInputPlan plan = planLongInput(m_modelSource, n);
        notice = plan.message;
        if (plan.action == LongInputPlan::Action::KeepLastTokens)
            tokens.erase(tokens.begin(), tokens.end() - plan.keep);
        if (plan.action == LongInputPlan::Action::RunPastTrainedLength && m_model->config().maxPositions < n) {
            ModelSource extended = m_modelSource;
            extended.config.maxPositions = n;
            m_session.reset();
            m_model.reset(); // the trained-length copy goes first (unless another tab still holds it)
            m_model = m_models.model(extended);
        }
        return m_model;
    }

    std::vector<TokenChip> chips(const std::vector<Token>& tokens) const {
        std::vector<TokenChip> out;
        out.reserve(tokens.size());
        for (const Token& t : tokens)
            out.push_back({ m_tokenizer->tokenText(t.id), t.id, t.special });
        return out;
    }

    ModelRegistry& m_models;
    ModelSummary m_summary;
    ModelSource m_modelSource;
    std::unique_ptr<Tokenizer> m_tokenizer;
    std::shared_ptr<const Model> m_model;
    std::unique_ptr<Session> m_session;
};

} // namespace

std::unique_ptr<AttentionProvider> openEngineProvider(
    const std::string& path, ModelRegistry& models, const ProgressFn& progress) {
    const ModelSource source = probeModel(path);
    if (!hasSelfAttention(source.config)) return openRnnSeq2SeqProvider(path, models, progress);
    if (source.config.kind == ModelKind::EncoderDecoder) return openSeq2SeqProvider(source, models, progress);
    if (source.config.kind == ModelKind::ImageToText) return openCaptionProvider(source, progress);
    return std::make_unique<EngineProvider>(source, models, progress);
}

} // namespace attn::ui
