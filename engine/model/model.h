// SPDX-License-Identifier: MIT
#pragma once
// The common contract of every model family: a typed description plus the forward passes the session drives.
#include "core/lifetime.h"
#include "core/tensor.h"
#include "model/model_config.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace attn {

class Backend;
class KvCache;
class Stream;
class StreamValue;
using Value = std::shared_ptr<StreamValue>;
struct Intervention;

struct StepResult;

/// Decoders: where a pass starts when the layers below `layer` would compute exactly what an earlier pass of the same
/// tokens at the same positions computed (an intervention that changes layer `layer` first).
struct ResumePoint {
    int64_t layer = 0;
    /// The earlier pass, run with wantHiddenStates: hiddenStates[layer] is the input of `layer`; its attention stands
    /// in for the reused layers' when attention is wanted. Not owned.
    const StepResult* from = nullptr;
    /// Holds the earlier pass's positions: the reused layers' rows are appended from it. Not owned.
    const KvCache* cache = nullptr;
};

/// What a forward pass records besides the logits.
struct ForwardOptions {
    bool wantAttention = true; ///< per layer, per head probabilities of the new query rows
    bool wantHiddenStates = false; ///< HF's hidden_states tuple for the new rows
    /// Encoders: per layer the queries, keys and values, so attention can be derived later without wantAttention and
    /// the Mechanisms tab can rerun a head (decoders keep them in the KV cache anyway).
    bool wantQueryKeys = false;
    /// Decoders: logits of the last new row only ([1, vocab]): a long prefill whose logits nobody reads (the GUI's
    /// attention views) then never holds [q, vocab] (0.8 GB for GPT-2 at 4,096 tokens).
    bool lastLogitsOnly = false;
    /// Runs the attention op (null: the CPU attention core directly). Not owned; used from one thread at a time.
    Backend* backend = nullptr;
    /// Called after each layer with (layers done, layers in this pass); returning false cancels the pass, which then
    /// throws Cancelled (a decoder's cache is left as it was). Per layer, so a long forward stops and reports soon.
    std::function<bool(int64_t done, int64_t total)> layerDone;
    /// Polled inside a layer too, between row blocks of the attention (a few milliseconds of work each on the CPU),
    /// and after each layer; true cancels the pass as a false from layerDone does. What a long prefill needs to stop
    /// within a fraction of a second: one layer of an 8k-token prompt takes seconds. Unset: layerDone alone.
    std::function<bool()> cancelRequested;
    /// Decoders on the CPU attention core: called with every head's final probability rows [rows, keys] as the pass
    /// computes them (layer, query head, absolute position of the first row, rows, probabilities), so that a run that
    /// stores no attention can still summarize it without a second pass. Backends that do not support it never call
    /// it. Unset: none.
    std::function<void(int64_t layer, int64_t head, int64_t query, int64_t rows, const float* probs)> observeAttention;
    /// Head masks and edits of this pass (intervention/intervention.h); null: the unmodified model. Not owned.
    const Intervention* intervention = nullptr;
    /// Null: every layer runs. Otherwise the pass starts there (decoders; ResumePoint). Not owned.
    const ResumePoint* resume = nullptr;
};

/// options.cancelRequested for the attention's spec: null when unset.
inline const std::function<bool()>* cancelPoll(const ForwardOptions& options)
{
    return options.cancelRequested ? &options.cancelRequested : nullptr;
}

/// options.observeAttention bound to `layer`, for CachedAttentionSpec::observeRows; empty when unset.
inline std::function<void(int64_t, int64_t, int64_t, const float*)> layerObserver(
    const ForwardOptions& options, int64_t layer)
{
    if (!options.observeAttention) return {};
    return [&observe = options.observeAttention, layer](int64_t head, int64_t query, int64_t rows, const float* p) {
        observe(layer, head, query, rows, p);
    };
}

/// Calls options.layerDone when set; throws Cancelled when it returns false or options.cancelRequested says so.
void reportLayerDone(const ForwardOptions& options, int64_t done, int64_t total);

/// With options.resume: checks it fits this pass, appends the reused layers' rows to `cache`, copies their attention
/// and hidden states into `result` as asked, and returns its layer; 0 without.
int64_t resumeReusedLayers(const ForwardOptions& options, KvCache& cache, StepResult& result, int64_t layers);

/// What a decoder's head reads: `normed` [q, hidden], or its last row with options.lastLogitsOnly.
Value logitsInput(Stream& s, const Value& normed, const ForwardOptions& options);

/// What running new positions through a model produced. Built once, then shared read-only
/// (the session hands it out as std::shared_ptr<const StepResult>).
struct StepResult {
    int64_t firstPosition = 0; ///< absolute position of tokens[0]
    std::vector<int64_t> tokens; ///< ids of the new positions
    Tensor logits; ///< [q, vocab] ([1, vocab] with ForwardOptions::lastLogitsOnly); empty for a model without a head
    /// Per layer [heads, q, keys], one row per query head. Decoders: keys = firstPosition + q (every key so far,
    /// masked entries exactly 0). Encoders: keys = q.
    std::vector<Tensor> attention;
    /// Encoders with ForwardOptions::wantQueryKeys: per layer queries [heads, q, d], keys and values [kvHeads, q, d].
    std::vector<Tensor> queries;
    std::vector<Tensor> keys;
    std::vector<Tensor> values;
    /// numLayers + 1 entries [q, hidden] when asked: 0 = embeddings, i = output of layer i - 1; the last has the
    /// final norm applied where the family has one (GPT-2 ln_f, Llama norm), as HF reports it.
    std::vector<Tensor> hiddenStates;
    /// Sparse MoE families (mixtral): per layer [q, experts], the router's logits before softmax and top-k.
    std::vector<Tensor> routerLogits;
    double seconds = 0.0; ///< wall time of the forward pass
};

/// An encoder layer's q, k and v [heads, n, d] read into result.queries / keys / values with options.wantQueryKeys
/// (the vectors reserved by Model::startResult); nothing without.
void readQueryKeys(
    Stream& s, const ForwardOptions& options, StepResult& result, const Value& q, const Value& k, const Value& v);

/// A loaded model. Immutable after loading, so one model may serve several sessions.
class Model {
public:
    virtual ~Model() = default;
    Model(const Model&) = delete;
    Model& operator=(const Model&) = delete;

    const ModelConfig& config() const { return m_config; }
    ModelKind kind() const { return m_config.kind; }
    /// One line for people: type, layers, heads, dims.
    std::string description() const;

protected:
    explicit Model(ModelConfig config);
    /// An empty result of `tokens` at `firstPosition` with a slot per layer for what `options` asks to capture.
    StepResult startResult(
        const std::vector<int64_t>& tokens, int64_t firstPosition, const ForwardOptions& options) const;

    ModelConfig m_config;
    /// Watched by backends that keep device copies of the weights (Backend::runStream).
    LifetimeToken m_weightsLifetime;
};

/// Causal decoders (GPT-2, Llama family, llama2.c): new positions run against an append-only KV cache.
class DecoderModel : public Model {
public:
    /// A cache shaped for this model (no positions yet).
    KvCache newCache() const;
    /// Runs `tokens` at positions cache.length() .. and appends them to the cache. On any error the cache is left as
    /// it was. Throws Error for an id outside the vocabulary or a position past the model's limit.
    virtual StepResult forward(
        KvCache& cache, const std::vector<int64_t>& tokens, const ForwardOptions& options) const = 0;

protected:
    using Model::Model;
    /// Value head size (== headDim for every family so far).
    virtual int64_t valueDim() const { return m_config.headDim; }
};

/// Bidirectional encoders (BERT): one pass over the whole input.
class EncoderModel : public Model {
public:
    /// tokenTypes and attentionMask are empty or as long as tokens; attentionMask 0 marks padding (never attended as
    /// a key; padded query rows are still computed). Throws Error on inconsistent inputs.
    virtual StepResult encode(const std::vector<int64_t>& tokens, const std::vector<int64_t>& tokenTypes,
        const std::vector<uint8_t>& attentionMask, const ForwardOptions& options) const = 0;

protected:
    using Model::Model;
};

} // namespace attn
