// SPDX-License-Identifier: MIT
#pragma once
// One session per loaded model: prefill / step / rewind over an append-only KV cache. Every call returns an immutable
// StepResult that callers (timeline, views, CLI) may keep.
#include "attention_source/attention_source.h"
#include "model/kv_cache.h"
#include "model/model.h"

#include <memory>
#include <optional>
#include <vector>

namespace attn {

class Session {
public:
    /// Throws Error for a model kind the session cannot drive (only decoders and encoders so far).
    explicit Session(std::shared_ptr<const Model> model, ForwardOptions options = {});

    const Model& model() const { return *m_model; }
    const std::shared_ptr<const Model>& modelPtr() const { return m_model; }
    bool isDecoder() const { return m_decoder != nullptr; }
    const ForwardOptions& options() const { return m_options; }
    void setOptions(const ForwardOptions& options) { m_options = options; }

    /// Decoders: runs `tokens` after the current positions (tokenTypes and attentionMask must be empty).
    /// Encoders: encodes `tokens` as a whole, replacing any previous input; tokenTypes / attentionMask are empty or
    /// as long as tokens. Throws Error on bad input; the session is then unchanged.
    std::shared_ptr<const StepResult> prefill(const std::vector<int64_t>& tokens,
        const std::vector<int64_t>& tokenTypes = {}, const std::vector<uint8_t>& attentionMask = {});
    /// Decoders only: one more position.
    std::shared_ptr<const StepResult> step(int64_t token);
    /// Decoders: drops the last n positions (the next step continues from there). Encoders: n == length() clears.
    void rewind(int64_t n);
    void reset() { rewind(length()); }
    /// Room for this many positions in total, so later steps do not reallocate.
    void reserve(int64_t positions);

    int64_t length() const { return static_cast<int64_t>(m_tokens.size()); }
    const std::vector<int64_t>& tokens() const { return m_tokens; }
    /// Decoders: the stored queries (after RoPE), keys and values; null for encoders.
    const KvCache* cache() const { return m_cache ? &*m_cache : nullptr; }

    /// Probabilities of query head `head` in `layer` for query rows [q0, q1) over every key [0, length()), derived
    /// from the stored Q and K (decoders) or the last encoding (encoders): [q1 - q0, length()].
    Tensor attentionRows(int64_t layer, int64_t head, int64_t q0, int64_t q1) const;
    /// The self-attention of every position so far, derived on request on the session's backend. Decoders: read
    /// from the KV cache in place (valid while the session keeps these positions; read it from the thread driving
    /// the session, or pass the session itself as `owner` and drive it no more: the source then keeps it alive and
    /// may be read from any thread). Encoders: from the last encoding's queries and keys
    /// (ForwardOptions::wantQueryKeys). Throws Error when there is nothing to derive from.
    std::shared_ptr<const AttentionSource> attentionSource(std::shared_ptr<const void> owner = {}) const;
    /// Decoders: the self-attention of the first `positions` positions, derived from a copy of their queries and keys
    /// on `backend` (kept alive by the source; null: the CPU attention core): an immutable value that any thread may
    /// read while the session goes on (the Decode tab's heatmap). Throws Error as attentionSource() does, and for more
    /// positions than the session holds.
    std::shared_ptr<const AttentionSource> attentionSourceCopy(
        int64_t positions, std::shared_ptr<Backend> backend = nullptr) const;
    /// Whether attentionSource() can give this model's probabilities exactly; `why` says what it cannot follow
    /// (soft-capped scores, windows on some layers only, a RoPE base that depends on the sequence length).
    static bool canDeriveAttention(const ModelConfig& config, std::string* why = nullptr);
    /// The structural mask of a decoder's self-attention (causal, the config's sliding window): what derived rows,
    /// captured snapshots and the forward's summaries of this model are cut with.
    static MaskSpec decoderMask(const ModelConfig& config);

private:
    /// Throws Error when the stored queries and keys cannot give this model's probabilities (canDeriveAttention, key
    /// masks).
    void requireDerivable() const;
    /// The structural mask and scale attentionSource() derives decoder rows with; throws Error when it cannot.
    AttentionOptions decoderDerivation() const;

    std::shared_ptr<const Model> m_model;
    const DecoderModel* m_decoder = nullptr;
    const EncoderModel* m_encoder = nullptr;
    ForwardOptions m_options;
    std::optional<KvCache> m_cache;
    std::vector<int64_t> m_tokens;
    std::shared_ptr<const StepResult> m_lastEncoding;
    std::vector<uint8_t> m_keyKeep; ///< the last encoding's attention mask
};

} // namespace attn
