// SPDX-License-Identifier: MIT
#include "controller/attention_provider.h"
#include "controller/seq2seq_provider.h"

#include "caption/caption_provider.h"
#include "core/error.h"
#include "model/model_source.h"
#include "model/family_registry.h"
#include "service/model_registry.h"
#include "session/long_input.h"
#include "session/prompt_run.h"
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
        Session { m_model }; // a model kind no session can drive is refused at open, not at its first run
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
        std::vector<int64_t> ids = tokenIds(tokens);
        const std::shared_ptr<const Model> model = modelFor(ids, run->notice);
        tokens.erase(tokens.begin(), tokens.end() - static_cast<std::ptrdiff_t>(ids.size()));
        const ModelConfig& c = model->config();
        // Steps: 1 tokenized, then one per layer, then the snapshot. A derived run's head statistics are streamed
        // afterwards, head by head (EngineWorker), so the first head is on screen as soon as the forward is done.
        const int layers = static_cast<int>(c.numLayers), total = layers + 2;
        if (!progress(1, total)) throw Cancelled();
        PromptOptions options;
        options.forward.backend = backend();
        options.forward.layerDone = layerProgress(progress, 1, total);
        options.forward.cancelRequested = cancelCheck(progress);
        options.forward.lastLogitsOnly = true; // the views never read logits
        options.materializeBytes = kMaterializeBytes;
        // The snapshot is read from the GUI thread, and the backend belongs to this one. The forward's own
        // probabilities give every head's statistics and thumbnail on the CPU core; heads a backend's pass does not
        // report are streamed afterwards (EngineWorker).
        options.summarize = true;
        options.tilesOnCpu = true;
        const PromptRun prompt = runPrompt(model, ids, {}, options);
        run->text = text;
        run->source = chips(tokens);
        run->expertsPerToken = c.expertsPerToken;
        run->routerLogits = prompt.result->routerLogits;
        if (prompt.derived) {
            run->views.emplace_back(
                AttentionKind::Self, std::make_shared<const AttentionSnapshot>(run->source, prompt.derived));
        } else {
            MaskSpec mask;
            if (dynamic_cast<const DecoderModel*>(model.get())) mask = Session::decoderMask(c);
            run->views.emplace_back(AttentionKind::Self,
                std::make_shared<const AttentionSnapshot>(run->source, prompt.result->attention, c.numKvHeads,
                    std::move(mask), std::vector<TokenChip> {}, AttentionSnapshot::Stats::Compute, layerWindows(c)));
        }
        if (!progress(total, total)) throw Cancelled();
        return run;
    }

private:
    static void checkpoint(const ProgressFn& progress, int step) {
        if (!progress(step, 4)) throw Cancelled();
    }

    /// The model to run `ids` on, as `attnscope-cli attention` plans it (session/long_input.h): a rotary decoder is
    /// reloaded with its position limit raised, other models keep the last tokens that fit (`ids` is cut).
    /// `notice` says what happened.
    std::shared_ptr<const Model> modelFor(std::vector<int64_t>& ids, std::string& notice) {
        const LongInputPlan plan = planLongInput(m_modelSource, static_cast<int64_t>(ids.size()));
        notice = plan.message;
        ModelSource planned = m_modelSource;
        std::vector<int64_t> noTypes;
        applyLongInput(plan, planned, ids, noTypes);
        if (m_model->config().maxPositions < planned.config.maxPositions) {
            m_model.reset(); // the trained-length copy goes first (unless another tab still holds it)
            m_model = m_models.model(planned);
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
};

} // namespace

std::unique_ptr<AttentionProvider> openEngineProvider(
    const std::string& path, ModelRegistry& models, const ProgressFn& progress) {
    const ModelSource source = probeModel(path);
    if (!hasSelfAttention(source.config)) return openRnnSeq2SeqProvider(path, models, progress);
    if (source.config.kind == ModelKind::EncoderDecoder) return openSeq2SeqProvider(source, models, progress);
    if (source.config.kind == ModelKind::ImageToText) return openCaptionProvider(source, models, progress);
    return std::make_unique<EngineProvider>(source, models, progress);
}

} // namespace attn::ui
