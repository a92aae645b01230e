// SPDX-License-Identifier: MIT
#include "backend/backend.h"

#include "core/error.h"

namespace attn {

const char* opName(Op op)
{
    switch (op) {
    case Op::AttentionProbabilities:
        return "attention-probabilities";
    case Op::AttentionOutput:
        return "attention-output";
    case Op::ProbabilityTile:
        return "probability-tile";
    case Op::Rope:
        return "rope";
    case Op::Matmul:
        return "matmul";
    }
    return "unknown";
}

namespace {

void checkMaskTensor(const Tensor* t, const char* what, int64_t heads, int64_t nq, int64_t nk)
{
    if (!t)
        return;
    const Shape& s = t->shape();
    const bool shared = s == Shape { nq, nk } || s == Shape { 1, nq, nk };
    if (!shared && s != Shape { heads, nq, nk })
        throw Error(std::string("attention ") + what + ": shape " + shapeToString(s) + " is neither [q, k] = ["
            + std::to_string(nq) + ", " + std::to_string(nk) + "] nor [heads, q, k]");
}

} // namespace

void checkAttentionInputs(const Shape& q, const Shape& k, const Shape* v, const AttentionOptions& options)
{
    if (q.size() != 3 || k.size() != 3)
        throw Error("attention: q " + shapeToString(q) + " and k " + shapeToString(k)
            + " must be [heads, tokens, head_dim]");
    const int64_t hq = q[0], hkv = k[0], nq = q[1], nk = k[1];
    if (hkv == 0 || hq % hkv != 0)
        throw Error("attention: " + std::to_string(hq) + " query heads are not a multiple of " + std::to_string(hkv)
            + " key/value heads");
    if (q[2] != k[2])
        throw Error(
            "attention: q head_dim " + std::to_string(q[2]) + " differs from k head_dim " + std::to_string(k[2]));
    if (v && (v->size() != 3 || (*v)[0] != hkv || (*v)[1] != nk))
        throw Error("attention: v " + shapeToString(*v) + " does not match k " + shapeToString(k));
    const MaskSpec& m = options.mask;
    if (!m.keyKeep.empty() && static_cast<int64_t>(m.keyKeep.size()) != nk)
        throw Error("attention: keyKeep has " + std::to_string(m.keyKeep.size()) + " entries for "
            + std::to_string(nk) + " keys");
    if (m.slidingWindow < 0 || m.queryOffset < 0)
        throw Error("attention: negative sliding window or query offset");
    checkMaskTensor(m.keepMask, "keepMask", hq, nq, nk);
    checkMaskTensor(m.bias, "bias", hq, nq, nk);
    if (!options.headScale.empty() && static_cast<int64_t>(options.headScale.size()) != hq)
        throw Error("attention: " + std::to_string(options.headScale.size()) + " head scales for "
            + std::to_string(hq) + " query heads");
}

void checkTileRange(const Tensor& q, const Tensor& k, const TileRange& r)
{
    if (q.rank() != 3 || k.rank() != 3)
        throw Error("probability tile: q and k must be [heads, tokens, head_dim]");
    if (r.head < 0 || r.head >= q.dim(0) || r.q0 < 0 || r.q0 > r.q1 || r.q1 > q.dim(1) || r.k0 < 0 || r.k0 > r.k1
        || r.k1 > k.dim(1))
        throw Error("probability tile: head " + std::to_string(r.head) + " rows [" + std::to_string(r.q0) + ", "
            + std::to_string(r.q1) + ") cols [" + std::to_string(r.k0) + ", " + std::to_string(r.k1)
            + ") is outside q " + shapeToString(q.shape()) + " / k " + shapeToString(k.shape()));
}

void checkRopeInputs(const Shape& x, int64_t positionOffset, RopeStyle style, int64_t rotaryDims)
{
    if (x.size() != 3)
        throw Error("rope: x " + shapeToString(x) + " must be [heads, tokens, head_dim]");
    if (style == RopeStyle::None)
        return; // nothing rotates, as applyRope()
    if (rotaryDims <= 0 || rotaryDims % 2 != 0 || rotaryDims > x[2])
        throw Error(
            "rope: rotary dims " + std::to_string(rotaryDims) + " must be even and <= head_dim " + std::to_string(x[2]));
    if (positionOffset < 0)
        throw Error("rope: negative position offset");
}

void checkMatmulInputs(const Shape& x, const Tensor& w, const Tensor* bias)
{
    if (w.rank() != 2 || x.empty() || x.back() != w.dim(1))
        throw Error("matmul: x " + shapeToString(x) + " does not match weight " + shapeToString(w.shape())
            + " ([out, in])");
    if (bias && !bias->empty() && bias->shape() != Shape { w.dim(0) })
        throw Error("matmul: bias " + shapeToString(bias->shape()) + " must be [" + std::to_string(w.dim(0)) + "]");
}

void Backend::runStream(const LifetimeToken&, const std::function<void(Stream&)>& work) { work(*makeCpuStream()); }

void runStream(Backend* backend, const LifetimeToken& weights, const std::function<void(Stream&)>& work)
{
    if (backend)
        backend->runStream(weights, work);
    else
        work(*makeCpuStream());
}

} // namespace attn
