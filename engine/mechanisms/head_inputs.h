// SPDX-License-Identifier: MIT
#pragma once
// One attention head's queries, keys and values, the input every mechanism runs on: read from a session's KV cache
// (after RoPE, as the model attends) or drawn as synthetic unit-variance vectors.
#include "attention/rope.h"
#include "mechanisms/learned_score.h"

#include <Eigen/Core>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attn {

class Session;
struct ModelConfig;
struct StepResult;

/// The mechanisms compute in double: their results are compared with each other at 1e-6, and the float32 inputs are
/// exact in double.
using Mat = Eigen::MatrixXd;
/// 1 = the query (row) may see the key (column).
using KeepMask = Eigen::Matrix<uint8_t, Eigen::Dynamic, Eigen::Dynamic>;

/// Every KV head of one layer, [T, d] each.
struct LayerKv {
    std::vector<Mat> keys, values;
};

struct HeadInputs {
    /// [T, d]: the head's own, after RoPE where the model has it. An RNN seq2seq model's cross-attention: q [T, dq] the
    /// decoder's query states, k = v [S, dk] the encoder outputs (S rows, dq and dk may differ).
    Mat q, k, v;
    /// The RNN seq2seq models' trained score function; None: the head scores q k^T * scale.
    LearnedScore learned;
    /// [T, keys] added to the scores before the softmax: T5's relative position bias for this head; empty: none.
    Mat bias;
    bool cross = false; ///< a transformer's cross-attention: T decoder queries over S encoder keys, no mask
    bool causal = false; ///< key j visible to query i only when j <= i
    int64_t slidingWindow = 0; ///< the model's own window (0: none), applied on top of causality
    double scale = 1.0; ///< the model's score scale (1/sqrt(d) for every family read here)
    int64_t layer = -1, head = -1; ///< -1 for synthetic inputs
    int64_t numHeads = 1; ///< query heads of the layer
    int64_t kvHead = 0; ///< the KV head this query head reads
    /// The model's RoPE at positions 0 .. T - 1 (style None: the head has none); q and k are stored after it.
    RotaryEmbedding rotary;
    /// Image models: the patch grid after the prefix tokens ([CLS], [DIST]); 0 otherwise.
    int64_t gridRows = 0, gridCols = 0;
    /// Every KV head of the layer (GQA pooling), one copy shared by the layer's query heads; null for synthetic input.
    std::shared_ptr<const LayerKv> layerKv;
    std::string origin; ///< "synthetic (seed S)" or the model description
    int64_t tokens() const { return q.rows(); }
    int64_t keyCount() const { return k.rows(); }
    /// True for a transformer self-attention head or synthetic input: q and k have the same rows and width and the
    /// head scores q k^T * scale (+ bias), which every mechanism beyond the scoring functions assumes.
    bool isSelfAttention() const { return learned.kind == LearnedScoreKind::None && !cross && q.rows() == k.rows(); }
    int64_t dim() const { return q.cols(); }
};

/// `rows` x `cols` row-major float32 values as a double matrix.
Mat matrixOf(const float* data, int64_t rows, int64_t cols);

/// Every query head of layer `layer` from the session's last run: decoders read the KV cache; encoders (BERT) encode
/// the session's tokens once more with their queries, keys and values kept (one segment, no padding, as the session
/// ran them). Throws Error for a layer outside the model, a model the session cannot drive, and when nothing ran yet.
std::vector<HeadInputs> layerHeadInputs(const Session& session, int64_t layer);

/// Query head `head` of layerHeadInputs(session, layer); throws Error for a head outside the model too.
HeadInputs headInputsFromSession(const Session& session, int64_t layer, int64_t head);

/// Every query head of one layer from its queries [heads, T, d] and keys and values [kvHeads, S, d]: no mask, scale
/// 1/sqrt(d), layer `layer`; the caller adds what else the model's attention applies (causality, a bias).
std::vector<HeadInputs> projectedHeadInputs(
    const Tensor& queries, const Tensor& keys, const Tensor& values, int64_t layer, const std::string& origin);

/// Every query head of layer `layer` of an encoder pass run with ForwardOptions::wantQueryKeys (BERT, ViT/DeiT):
/// bidirectional, no mask, scale 1/sqrt(d). Throws Error for a layer outside the pass or a pass without them.
std::vector<HeadInputs> encoderHeadInputs(
    const StepResult& pass, const ModelConfig& config, int64_t layer, const std::string& origin);

/// q, k and v with independent N(0, 1) entries (rounded to float32) (drawn in that order, row-major, from
/// RandomStream(seed)), no mask and scale 1/sqrt(d). Throws Error for T or d outside [1, 4096].
HeadInputs syntheticHeadInputs(int64_t tokens, int64_t dim, uint64_t seed);

/// Which keys each query of `inputs` may see under the model's own mask (causality and sliding window): [T, keys].
KeepMask modelKeepMask(const HeadInputs& inputs);
/// The rows `rows` of modelKeepMask(inputs): [rows, keys].
KeepMask modelKeepMask(const HeadInputs& inputs, const std::vector<int64_t>& rows);

} // namespace attn
