// SPDX-License-Identifier: MIT
#pragma once
// The one decode loop: the Decode tab and `attnscope-cli generate` both drive it. One Session, the run.c-exact
// Sampler and the timeline of steps. The prompt runs as batched forwards and the sampler is called once per new token,
// as llama2.c's run.c does. Used by one thread at a time (the engine thread in the GUI).
#include "model/model.h"
#include "model/model_source.h"
#include "session/decode_step.h"
#include "session/sampler.h"

#include <memory>
#include <string>
#include <vector>

namespace attn {
class AttentionSource;
class ModelRegistry;
class Session;
class Tokenizer;

/// The token that ends decoding (run.c's rule: the model starts a new sequence): BOS for llama2.c, EOS for HF models.
int64_t decodeStopToken(const ModelSource& source);

class DecodeTimeline {
public:
    static constexpr int64_t kCandidates = 10;

    /// Decodes with `model` (a decoder: Error naming `source` otherwise) loaded from `source`; without a tokenizer
    /// tokens show as "#id". Forward steps use `options` (backend, head mask).
    DecodeTimeline(const ModelSource& source, std::shared_ptr<const Model> model,
        std::shared_ptr<const Tokenizer> tokenizer, const ForwardOptions& options = {});
    ~DecodeTimeline();

    const DecodeModelInfo& info() const { return m_info; }
    /// Replaces the sampler (its generator starts again from options.seed). Throws Error on invalid options.
    void setSampling(const SamplerOptions& options);
    const SamplerOptions& sampling() const;
    /// Later forward steps use `options` (the backend chosen since); the timeline stays.
    void setForwardOptions(const ForwardOptions& options);
    /// Room in the KV cache for `positions` positions, so that decoding does not reallocate it.
    void reserve(int64_t positions);
    /// Whether the steps recorded from now on hold their next-token distribution (candidates, probability, entropy;
    /// the Decode panel shows it). On by default. `generate` prints only the tokens and turns it off: the softmax,
    /// entropy and top 10 over the vocabulary (libm's exp per entry, as the sampler's) were a tenth of a small model's
    /// decode step, and run.c computes none at temperature 0.
    void setRecordsDistribution(bool on) { m_recordsDistribution = on; }
    const std::shared_ptr<const Model>& model() const { return m_model; }

    /// Tokenizes `text` (BOS added as the tokenizer does; empty text = just BOS). Throws Error without a tokenizer.
    std::vector<int64_t> encode(const std::string& text) const;
    /// Clears the timeline and runs `ids`; the sampler starts afresh. Returns their steps, recorded as running the
    /// positions one at a time would record them (within rounding: a batched forward sums in another order), but
    /// run as a few batched forwards: a 2,048-token prompt then takes seconds, not minutes.
    std::vector<DecodeStepPtr> prompt(const std::vector<int64_t>& ids);
    /// Draws the next token and runs it. Null when decoding has ended (the stop token was drawn or the model's
    /// context is full); then nothing changes.
    DecodeStepPtr step();
    /// The token step() would draw, without running it (the generator advances as in step()): run.c prints the token
    /// sampled from the last position's logits even when the context has no room left to run it. -1 before a prompt.
    int64_t draw();
    /// Drops the last position (at least one stays) and rewinds the sampler's generator with it, so that step()
    /// draws the same token again under the same options.
    void back();
    /// Replaces the token at `position` (1 .. length()) by `token` and drops everything after it: a what-if branch.
    /// The generator continues from where it was when `position` was drawn.
    DecodeStepPtr force(int64_t position, int64_t token);
    /// Keeps the first `keep` positions and appends the tokens of `steps` (another branch's timeline from `keep` on)
    /// with their origins and sampler states, so that the branch continues exactly as it would have. Returns the new
    /// steps.
    std::vector<DecodeStepPtr> restore(int64_t keep, const std::vector<DecodeStepPtr>& steps);
    void clear();

    /// The self-attention of the first `positions` positions, derived from a copy of their queries and keys (a value
    /// any thread may read while decoding goes on), so that no view needs every step's rows assembled into
    /// matrices. Null when derived rows would differ from the captured ones (Session::canDeriveAttention, or an
    /// intervention in the forward options): only then do the steps capture their `attention` rows, which are then
    /// the attention. Tiles are computed on `backend` (kept alive by the source; null: the CPU attention core).
    /// Throws Error for positions outside 1 .. length().
    std::shared_ptr<const AttentionSource> derivedAttention(
        int64_t positions, std::shared_ptr<Backend> backend = nullptr) const;

    int64_t length() const { return static_cast<int64_t>(m_steps.size()); }
    const std::vector<DecodeStepPtr>& steps() const { return m_steps; }
    /// True when step() would return null.
    bool finished() const;
    TokenChip chip(int64_t id) const;

private:
    /// Whether steps run with `options` have their attention derived rather than captured.
    bool derivesAttention(const ForwardOptions& options) const;
    /// `options` with wantAttention off where the rows can be derived.
    ForwardOptions stepOptions(ForwardOptions options) const;
    /// Keeps the first `positions` positions and recomputes the logits that follow them by running the last again.
    void truncate(int64_t positions);
    /// Runs `token` after the last position and records it.
    DecodeStepPtr append(int64_t token, TokenOrigin origin);
    /// Runs `tokens` after the last position in one forward and records each; they must fit
    /// batchedPositions().
    void appendBatch(const std::vector<int64_t>& tokens, TokenOrigin origin);
    /// How many of the next positions one forward may run: bounded so that its logits and captured rows stay small,
    /// and not across the length where longrope's rotation changes (a forward crossing it would rotate its earlier
    /// rows differently from one position at a time).
    int64_t batchedPositions() const;
    /// The step of the position just run as row `row` of `r`, whose token was drawn from `previousLogits` (null at
    /// position 0); `seconds` is its share of the forward.
    DecodeStepPtr record(int64_t token, TokenOrigin origin, const float* previousLogits, const StepResult& r,
        int64_t row, double seconds) const;

    std::shared_ptr<const Model> m_model;
    std::shared_ptr<const Tokenizer> m_tokenizer;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<Sampler> m_sampler;
    DecodeModelInfo m_info;
    std::vector<DecodeStepPtr> m_steps;
    std::vector<float> m_nextLogits; ///< logits after the last position
    bool m_recordsDistribution = true;
};

/// A timeline for the decoder at `path` (anything probeModel accepts), its weights from `models` when given (the
/// copy the other tabs share) or loaded for it alone; a missing tokenizer is allowed (tokens show as "#id"). Throws
/// Error naming the path for anything that cannot decode, before loading any weights.
std::unique_ptr<DecodeTimeline> openDecodeTimeline(
    const std::string& path, ModelRegistry* models = nullptr, const ForwardOptions& options = {});

} // namespace attn
