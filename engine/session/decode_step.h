// SPDX-License-Identifier: MIT
#pragma once
// One position of a decode timeline as the decode panel shows it. Built once on the engine thread, then shared
// read-only: later steps never change it (the KV cache is append-only), so scrubbing back shows it as it was.
#include "core/tensor.h"
#include "model/token_chip.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attn {

struct TokenCandidate {
    TokenChip token;
    float probability = 0.0f;
};

/// Where the token at a position came from: Greedy is the argmax (temperature 0), Sampled a draw from the sampler.
enum class TokenOrigin { Prompt, Greedy, Sampled, Forced };

struct DecodeStep {
    int64_t position = 0;
    TokenChip token;
    TokenOrigin origin = TokenOrigin::Prompt;
    /// The most likely tokens at this position under softmax(logits of the previous position) (temperature 1, before
    /// any top-k/top-p filtering), most likely first; empty at position 0 and where the timeline records no
    /// distribution (DecodeTimeline::setRecordsDistribution).
    std::vector<TokenCandidate> candidates;
    float probability = 0.0f; ///< of `token` under that distribution (NaN where `candidates` is empty)
    float entropyBits = 0.0f; ///< of that distribution (NaN where `candidates` is empty)
    /// Per layer [heads, position + 1]: this position's attention row of every query head, captured only for models
    /// whose rows cannot be derived from the queries and keys (DecodeTimeline::derivedAttention is null); empty
    /// otherwise (views derive them, ARCHITECTURE.md decision 2).
    std::vector<Tensor> attention;
    /// Per layer: L2 norm of this position's key and value, over all KV heads together.
    std::vector<float> keyNorms;
    std::vector<float> valueNorms;
    double seconds = 0.0; ///< wall time of the forward step (a prompt's batched forward shared by its positions)
    std::string backend; ///< what computed it (Backend::name(), or "cpu" for the reference attention core)
    uint64_t samplerState = 0; ///< the sampler's generator once this position was chosen (Back restores it)
};

using DecodeStepPtr = std::shared_ptr<const DecodeStep>;

/// What the decode panel needs to know about the open model.
struct DecodeModelInfo {
    std::string path;
    int64_t numLayers = 0;
    int64_t numHeads = 0;
    int64_t numKvHeads = 0;
    int64_t slidingWindow = 0; ///< 0 = none
    /// One window per layer where layers differ (gemma2's local and global layers); empty: slidingWindow in each.
    std::vector<int64_t> layerWindows;
    double attnLogitSoftcap = 0.0; ///< gemma2: scores -> cap * tanh(scores / cap) before the softmax; 0 = none
    double finalLogitSoftcap = 0.0; ///< gemma2: logits -> cap * tanh(logits / cap); 0 = none
    int64_t maxPositions = 0;
    int64_t vocabSize = 0;
    int64_t stopToken = -1; ///< decoding ends when this is drawn (BOS for llama2.c, EOS for HF), as the CLI
    bool hasTokenizer = false;

    /// The sliding window of layer `layer` (0 = none).
    int64_t windowOfLayer(int64_t layer) const
    {
        return layerWindows.empty() ? slidingWindow : layerWindows.at(static_cast<size_t>(layer));
    }
};

/// Softmax of `logits` [n] (float, max subtracted, as the sampler), its entropy in bits, and the `k` most likely
/// ids (ties in index order).
struct NextTokenDistribution {
    std::vector<float> probabilities;
    float entropyBits = 0.0f;
    std::vector<int64_t> topIds;
};
NextTokenDistribution nextTokenDistribution(const float* logits, int64_t n, int64_t k);

} // namespace attn
