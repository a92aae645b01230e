// SPDX-License-Identifier: MIT
#pragma once
// Records the shaders/*.comp kernels into a Job, one function per kernel: the parameter blocks, workgroup counts and
// device limits live here once, for the per-op backend calls and for the resident stream alike.
#include "attention/attention.h"
#include "attention/rope.h"
#include "model/layers.h"
#include "vulkan/vk_job.h"

#include <cstdint>

namespace attn::vk {

/// Mirrors the push-constant block of attn_common.glsl.
struct AttentionParams {
    uint32_t hq, hkv, nq, nk, d, dv;
    float scale;
    uint32_t causal;
    int32_t queryOffset;
    int32_t window;
    uint32_t hasKeyKeep, hasKeep, keepHeadStride, hasBias, biasHeadStride;
    uint32_t head0, row0, col0, col1;
    uint32_t kvRows;
    uint32_t keysPerSplit;
    uint32_t row1;
    float softcap;
};
static_assert(sizeof(AttentionParams) == 23 * 4);

/// The operands every attention kernel binds (0..6) and the parameters they share.
struct AttentionOperands {
    BufferRef q, k, v, keyKeep, keep, bias;
    AttentionParams params {};
};

/// Throws DeviceFailure when `value` does not fit the kernels' 32-bit indexing.
uint32_t fits32(int64_t value, const char* what);

class Recorder {
public:
    Recorder(Context& context, Job& job)
        : m_context(context)
        , m_job(job)
    {
    }

    /// Uploads q, k, (v) and the mask operands of `options` and fills the parameters (all heads, all rows/columns).
    AttentionOperands attentionOperands(const Tensor& q, const Tensor& k, const Tensor* v, const AttentionOptions& options);
    /// Uploads the mask operands of `options` for q [hq, nq, d] against k [hkv, nk, d] (values of width dv, 0 when
    /// absent) and fills a's parameters; a's q, k and v are the caller's.
    void attachMasks(AttentionOperands& a, const Shape& q, const Shape& k, int64_t dv, const AttentionOptions& options);
    /// Parameters for q [hq, nq, d] against keys/values with kvRows rows per KV head, of which nk are used.
    static AttentionParams attentionParams(int64_t hq, int64_t nq, int64_t d, int64_t hkv, int64_t nk, int64_t dv,
        int64_t kvRows, const AttentionOptions& options);
    /// Fused output [hq, nq, dv] of all query heads and rows. Few (row, head) pairs against many keys (decode steps
    /// at long context) split the keys across workgroups and join the partials (flash-decoding).
    void attentionOutput(const AttentionOperands& a, const BufferRef& out);
    /// Probabilities [heads, row1 - row0, col1 - col0] from head0 / row0 (as set in the parameters).
    void attentionProbs(const AttentionOperands& a, const BufferRef& out, int64_t heads);

    /// y [rows, out] = x [rows, in] W^T (+ bias). With yStride (0: out) and colOffset, the result goes to columns
    /// [colOffset, colOffset + out) of a [rows, yStride] y and the bias is read from colOffset on: a weight too large
    /// for one buffer is multiplied in row blocks.
    void matmul(const BufferRef& x, const BufferRef& w, const BufferRef* bias, int64_t rows, int64_t in, int64_t out,
        const BufferRef& y, int64_t yStride = 0, int64_t colOffset = 0);
    /// The CPU core's own (cos, sin) [t, rotaryDims / 2] of positions positionOffset .., uploaded; null buffers when
    /// nothing rotates. A forward computes them once for all its layers.
    struct RopeTables {
        BufferRef cos, sin;
    };
    RopeTables ropeTables(int64_t t, int64_t positionOffset, const RotaryEmbedding& rope);
    /// applyRope() on x [heads, t, d] in place with tables from ropeTables() (same t, style and rotary dims).
    void rope(const BufferRef& x, int64_t heads, int64_t t, int64_t d, RopeStyle style, int64_t rotaryDims,
        const RopeTables& tables);
    /// RMSNorm (bias null) or LayerNorm of x [rows, d] into y.
    void norm(const BufferRef& x, const BufferRef& weight, const BufferRef* bias, int64_t rows, int64_t d, double eps,
        const BufferRef& y);
    void activation(const BufferRef& x, int64_t n, Activation activation);
    /// x += y or x *= y over n elements.
    void elementwise(const BufferRef& x, const BufferRef& y, int64_t n, bool multiply);
    /// x clamped to [-limit, limit] over n elements.
    void clamp(const BufferRef& x, int64_t n, float limit);
    /// x *= factor over n elements.
    void scale(const BufferRef& x, int64_t n, float factor);
    /// x [blocks, block] row b *= factors[b] (head masks on head-major outputs and probabilities).
    void scaleBlocks(const BufferRef& x, const BufferRef& factors, int64_t blocks, int64_t block);
    /// splitHeads() (src [n, cols] -> dst [heads, n, dim]) or mergeHeads() (src [heads, n, dim] -> dst [n, heads*dim]).
    void heads(const BufferRef& src, const BufferRef& dst, int64_t n, int64_t heads, int64_t dim, int64_t cols,
        int64_t offset, bool merge);

private:
    /// Workgroups for a grid-stride loop over `items` with `threads` per group, capped by the device.
    uint32_t strideGroups(int64_t items, uint32_t threads) const;
    BufferRef placeholder() { return m_job.scratch(4); }

    Context& m_context;
    Job& m_job;
};

} // namespace attn::vk
