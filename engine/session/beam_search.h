// SPDX-License-Identifier: MIT
#pragma once
// Beam search over any incremental seq2seq decoder, keeping each beam's cross-attention history.
#include "core/tensor.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace attn {

class Backend;
class EncoderDecoderModel;
struct EncoderOutput;
class RnnSeq2SeqModel;
struct RnnEncoding;

struct BeamStepOutput {
    std::vector<float> logits; ///< [V] for the next token
    Tensor crossAttention; ///< [layers, heads, S] of the new position (RNN: [1, 1, K])
    /// Transformers: the cross-attention queries [layers, heads, head dim] of the new position, from which with
    /// BeamDecoder::crossKeys() its attention can be derived again (session/cross_attention_source.h); RNN: empty.
    Tensor crossQueries;
};

/// What a transformer decoder's cross-attention queries meet: the encoding's per-layer keys [heads, S, head dim]
/// (EncoderOutput::crossKeys) and the scale of the scores (0: 1 / sqrt(head dim)).
struct CrossKeys {
    std::shared_ptr<const EncoderOutput> encoding;
    float scale = 0.0f;
};

/// A decoder state that beams can branch: clone() copies the state (KV cache or RNN hidden state).
class BeamDecoder {
public:
    virtual ~BeamDecoder() = default;
    virtual std::unique_ptr<BeamDecoder> clone() const = 0;
    /// Feeds `token` at the next position.
    virtual BeamStepOutput step(int64_t token) = 0;
    /// The keys every step's crossQueries meet; null for a decoder whose attention is no query-key product (RNN).
    virtual std::shared_ptr<const CrossKeys> crossKeys() const { return nullptr; }
    /// Later steps (of this state and of its later clones) run on `backend` (null: the CPU), which the decoder keeps
    /// alive: a state kept across engine jobs then follows View > Compute backend. The RNN runs on the CPU always.
    virtual void useBackend(std::shared_ptr<Backend> /*backend*/) { }
};

struct BeamOptions {
    int64_t width = 4;
    int64_t maxNewTokens = 50;
    int64_t startToken = 0;
    int64_t eosToken = -1; ///< < 0: never stops early
    double lengthPenalty = 1.0; ///< final score = sum log p / length^lengthPenalty (HF's convention)
};

struct BeamHypothesis {
    std::vector<int64_t> tokens; ///< generated ids (EOS included when it ended there)
    double logProb = 0.0; ///< sum of the tokens' log-probabilities
    double score = 0.0; ///< logProb / length^lengthPenalty
    /// crossAttention[i] is the cross-attention [layers, heads, S] of the step that chose tokens[i].
    std::vector<Tensor> crossAttention;
    /// crossQueries[i]: BeamStepOutput::crossQueries of that step (empty tensors for the RNN).
    std::vector<Tensor> crossQueries;
    bool finished = false; ///< ended with EOS
};

/// Up to `width` hypotheses, best score first. Width 1 is greedy decoding. Throws Error for width < 1.
std::vector<BeamHypothesis> beamSearch(const BeamDecoder& start, const BeamOptions& options);

/// `headMask`: empty, or the model's [rows, heads] mask (Seq2SeqHeadRows) that every step's decode() applies; the
/// encoding should have been made under the same mask (its encoder rows). The steps run on `backend` (null: the CPU).
std::unique_ptr<BeamDecoder> makeBeamDecoder(std::shared_ptr<const EncoderDecoderModel> model,
    std::shared_ptr<const EncoderOutput> encoding, const Tensor& headMask = {},
    std::shared_ptr<Backend> backend = nullptr);
std::unique_ptr<BeamDecoder> makeBeamDecoder(
    std::shared_ptr<const RnnSeq2SeqModel> model, std::shared_ptr<const RnnEncoding> encoding);

} // namespace attn
