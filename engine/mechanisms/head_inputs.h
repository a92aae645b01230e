// SPDX-License-Identifier: MIT
#pragma once
// One attention head's queries, keys and values, the input every mechanism runs on: read from a session's KV cache
// (after RoPE, as the model attends) or drawn as synthetic unit-variance vectors.
#include <Eigen/Core>

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

class Session;

/// The mechanisms compute in double: their results are compared with each other at 1e-6, and the float32 inputs are
/// exact in double.
using Mat = Eigen::MatrixXd;
/// 1 = the query (row) may see the key (column).
using KeepMask = Eigen::Matrix<uint8_t, Eigen::Dynamic, Eigen::Dynamic>;

struct HeadInputs {
    Mat q, k, v; ///< [T, d]: the head's own, after RoPE where the model has it
    bool causal = false; ///< key j visible to query i only when j <= i
    int64_t slidingWindow = 0; ///< the model's own window (0: none), applied on top of causality
    double scale = 1.0; ///< the model's score scale (1/sqrt(d) for every family read here)
    int64_t layer = -1, head = -1; ///< -1 for synthetic inputs
    int64_t numHeads = 1; ///< query heads of the layer
    int64_t kvHead = 0; ///< the KV head this query head reads
    std::vector<Mat> layerKeys, layerValues; ///< every KV head of the layer [T, d] (GQA pooling); empty for synthetic
    std::string origin; ///< "synthetic (seed S)" or the model description
    int64_t tokens() const { return q.rows(); }
    int64_t dim() const { return q.cols(); }
};

/// Reads layer `layer`, query head `head` from the session's last forward pass (decoders: the KV cache). Throws Error
/// for an encoder session (its Q/K/V are not kept) or a layer/head outside the model, and when nothing ran yet.
HeadInputs headInputsFromSession(const Session& session, int64_t layer, int64_t head);

/// q, k and v with independent N(0, 1) entries (rounded to float32) (drawn in that order, row-major, from
/// RandomStream(seed)), no mask and scale 1/sqrt(d). Throws Error for T or d outside [1, 4096].
HeadInputs syntheticHeadInputs(int64_t tokens, int64_t dim, uint64_t seed);

/// Which keys each query of `inputs` may see under the model's own mask (causality and sliding window).
KeepMask modelKeepMask(const HeadInputs& inputs);

} // namespace attn
