// SPDX-License-Identifier: MIT
#pragma once
// Beam search over any incremental seq2seq decoder, keeping each beam's cross-attention history.
#include "core/tensor.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace attn {

class EncoderDecoderModel;
struct EncoderOutput;
class RnnSeq2SeqModel;
struct RnnEncoding;

struct BeamStepOutput {
    std::vector<float> logits; ///< [V] for the next token
    Tensor crossAttention; ///< [layers, heads, S] of the new position (RNN: [1, 1, K])
};

/// A decoder state that beams can branch: clone() copies the state (KV cache or RNN hidden state).
class BeamDecoder {
public:
    virtual ~BeamDecoder() = default;
    virtual std::unique_ptr<BeamDecoder> clone() const = 0;
    /// Feeds `token` at the next position.
    virtual BeamStepOutput step(int64_t token) = 0;
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
    bool finished = false; ///< ended with EOS
};

/// Up to `width` hypotheses, best score first. Width 1 is greedy decoding. Throws Error for width < 1.
std::vector<BeamHypothesis> beamSearch(const BeamDecoder& start, const BeamOptions& options);

std::unique_ptr<BeamDecoder> makeBeamDecoder(
    std::shared_ptr<const EncoderDecoderModel> model, std::shared_ptr<const EncoderOutput> encoding);
std::unique_ptr<BeamDecoder> makeBeamDecoder(
    std::shared_ptr<const RnnSeq2SeqModel> model, std::shared_ptr<const RnnEncoding> encoding);

} // namespace attn
