// SPDX-License-Identifier: MIT
#pragma once
// The decode loop behind the decode panel: one Session, the run.c-exact Sampler and the timeline of steps. Lives on
// the engine thread only. Prompt tokens are run one position at a time and the sampler is called once per new token,
// exactly as `attnscope-cli generate` does, so the same options give the same tokens.
#include "decode/decode_step.h"
#include "session/sampler.h"

#include <memory>
#include <string>
#include <vector>

namespace attn {
class Model;
class Session;
class Tokenizer;
} // namespace attn

namespace attn::ui {

class DecodeEngine {
public:
    static constexpr int64_t kCandidates = 10;

    /// Opens a decoder (anything probeModel accepts); a missing tokenizer is allowed (tokens show as "#id").
    /// Throws Error naming the path for anything else.
    explicit DecodeEngine(const std::string& path);
    ~DecodeEngine();

    const DecodeModelInfo& info() const { return m_info; }
    /// Replaces the sampler (its generator starts again from options.seed). Throws Error on invalid options.
    void setSampling(const SamplerOptions& options);
    const SamplerOptions& sampling() const;

    /// Tokenizes `text` (BOS added as the tokenizer does; empty text = just BOS). Throws Error without a tokenizer.
    std::vector<int64_t> encode(const std::string& text) const;
    /// Clears the timeline and runs `ids` one position at a time; the sampler starts afresh. Returns their steps.
    std::vector<DecodeStepPtr> prompt(const std::vector<int64_t>& ids);
    /// Draws the next token and runs it. Null when decoding has ended (the stop token was drawn or the model's
    /// context is full); then nothing changes.
    DecodeStepPtr step();
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

    int64_t length() const { return static_cast<int64_t>(m_steps.size()); }
    const std::vector<DecodeStepPtr>& steps() const { return m_steps; }
    /// True when step() would return null.
    bool finished() const;
    /// Every layer's attention over the first `positions` positions ([heads, n, n] per layer, rows of the steps).
    SnapshotPtr snapshot(int64_t positions) const;
    TokenChip chip(int64_t id) const;

private:
    /// Keeps the first `positions` positions and recomputes the logits that follow them by running the last again.
    void truncate(int64_t positions);
    DecodeStepPtr append(int64_t token, TokenOrigin origin);

    std::shared_ptr<const Model> m_model;
    std::unique_ptr<Tokenizer> m_tokenizer;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<Sampler> m_sampler;
    DecodeModelInfo m_info;
    std::vector<DecodeStepPtr> m_steps;
    std::vector<float> m_nextLogits; ///< logits after the last position
};

} // namespace attn::ui
