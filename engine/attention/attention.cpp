// SPDX-License-Identifier: MIT
#include "attention/attention.h"

#include "attention/softmax_avx2.h"
#include "backend/cpu_workers.h"
#include "core/blas.h"
#include "core/error.h"
#include "core/page_populate.h"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace attn {
namespace {

using RowArrayMap = Eigen::Map<Eigen::Array<float, 1, Eigen::Dynamic>>;
using ConstRowArrayMap = Eigen::Map<const Eigen::Array<float, 1, Eigen::Dynamic>>;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();
// The scores are computed in tiles of at most this many floats (1 MiB): a block of query rows times the keys they see,
// small enough to stay in a core's L2 cache from the product through the softmax to the write-out, and no sequence
// needs a [q, k] buffer for them.
constexpr int64_t kTileFloats = int64_t(1) << 18;
// From this head dim on, tiles twice as large. A block's product packs its keys ([visible keys, d]) once for all its
// rows, so at long inputs a 1 MiB tile (32 rows at 8,192 keys) left head dim 128 packing 4 MiB of keys for every 32
// rows; measured on a 2-core AMD EPYC (1 MiB L2), 8,192 tokens, d = 128: 2^18-float tiles 506-834 ms of CPU, 2^19
// 481-520, the kernel before tiles 480-485; at d = 64 2^18 stays the fastest (bench/README.md, branch perf11).
constexpr int64_t kWideHeadDim = 128;

// A tile of fewer scores is finished on the calling thread: waking the other cores would cost more than it saves.
constexpr int64_t kParallelMinScores = int64_t(1) << 14;
// The rows of a larger tile are finished in this many chunks, taken by whichever core is free.
constexpr int64_t kRowChunks = 8;
// Results of at least this many floats (8 MiB) have their pages mapped by every core before they are zero-filled
// (zeroedResult), in this many parts.
constexpr int64_t kPopulateMinFloats = int64_t(1) << 21;
constexpr int64_t kPopulateParts = 16;
// Blocks narrower than this many keys keep softmaxRowsInPlace's scalar exp, so short inputs round exactly as before
// (the vectorized exp differs by an ulp or so: enough to move a tiny HF fixture's logits, 0.9 of their 1e-5 test bound
// before, just past it); from here on the exp is most of the softmax's time and is vectorized.
constexpr int64_t kWindowSoftmaxMinKeys = 128;

/// The shapes of one attention call, validated.
struct Dims {
    int64_t hq = 0, hkv = 0, nq = 0, nk = 0, d = 0, dv = 0;
};

/// A [q, k] or [heads, q, k] per-head operand (keepMask, bias): the row block of head h.
const float* perHeadRows(const Tensor* t, int64_t h, const Dims& dims) {
    if (!t) return nullptr;
    const int64_t head = t->rank() == 3 && t->dim(0) != 1 ? h : 0;
    return t->data() + head * dims.nq * dims.nk;
}

void checkPerHead(const Tensor* t, const char* what, const Dims& dims) {
    if (!t) return;
    const Shape& s = t->shape();
    const bool ok = (s.size() == 2 && s[0] == dims.nq && s[1] == dims.nk)
        || (s.size() == 3 && (s[0] == dims.hq || s[0] == 1) && s[1] == dims.nq && s[2] == dims.nk);
    if (!ok)
        throw Error(std::string("attention: ") + what + " has shape " + shapeToString(s) + ", expected ["
            + std::to_string(dims.nq) + ", " + std::to_string(dims.nk) + "] or [" + std::to_string(dims.hq) + ", "
            + std::to_string(dims.nq) + ", " + std::to_string(dims.nk) + "]");
}

void checkStructure(const MaskSpec& spec, int64_t numKeys) {
    if (spec.queryOffset < 0) throw Error("attention: negative queryOffset " + std::to_string(spec.queryOffset));
    if (spec.slidingWindow < 0) throw Error("attention: negative slidingWindow " + std::to_string(spec.slidingWindow));
    if (!spec.keyKeep.empty() && static_cast<int64_t>(spec.keyKeep.size()) != numKeys)
        throw Error("attention: keyKeep has " + std::to_string(spec.keyKeep.size()) + " entries for "
            + std::to_string(numKeys) + " keys");
}

/// The checks of one call on its shapes: q [hq, nq, d]; hkv kv heads of nk keys of dim d (and values of dim dv, 0 for
/// none), described by `kv()` for the error messages (built only for one: a decode step makes a call per layer).
template <class Describe>
Dims checkDims(const Tensor& q, Dims dims, const Describe& kv, const AttentionOptions& options)
{
    if (dims.d < 1 || q.dim(2) != dims.d)
        throw Error("attention: head dims differ or are empty: q " + shapeToString(q.shape()) + ", " + kv());
    if (dims.hkv < 1 || dims.hq < 1 || dims.hq % dims.hkv != 0)
        throw Error("attention: " + std::to_string(dims.hq) + " query heads cannot share " + std::to_string(dims.hkv)
            + " key/value heads");
    if (!std::isfinite(options.scale)) throw Error("attention: scale is not finite");
    if (!(options.softcap >= 0.0f) || !std::isfinite(options.softcap))
        throw Error("attention: softcap must be finite and not negative");
    checkStructure(options.mask, dims.nk);
    checkPerHead(options.mask.keepMask, "keepMask", dims);
    checkPerHead(options.mask.bias, "bias", dims);
    if (!options.headScale.empty() && static_cast<int64_t>(options.headScale.size()) != dims.hq)
        throw Error("attention: " + std::to_string(options.headScale.size()) + " head scales for "
            + std::to_string(dims.hq) + " query heads");
    return dims;
}

Dims checkShapes(const Tensor& q, const Tensor& k, const Tensor* v, const AttentionOptions& options)
{
    if (q.rank() != 3 || k.rank() != 3 || (v && v->rank() != 3))
        throw Error("attention: q, k, v must be [heads, t, d]; got q " + shapeToString(q.shape()) + ", k "
            + shapeToString(k.shape()) + (v ? ", v " + shapeToString(v->shape()) : std::string()));
    if (v && (v->dim(0) != k.dim(0) || v->dim(1) != k.dim(1) || v->dim(2) < 1))
        throw Error("attention: v " + shapeToString(v->shape()) + " does not match k " + shapeToString(k.shape()));
    return checkDims(
        q, { q.dim(0), k.dim(0), q.dim(1), k.dim(1), k.dim(2), v ? v->dim(2) : 0 },
        [&] { return "k " + shapeToString(k.shape()); }, options);
}

/// The base of each kv head's rows in a [hkv, t, dim] tensor.
std::vector<const float*> headRows(const Tensor& t)
{
    std::vector<const float*> rows(static_cast<size_t>(t.dim(0)));
    for (size_t h = 0; h < rows.size(); ++h)
        rows[h] = t.data() + static_cast<int64_t>(h) * t.dim(1) * t.dim(2);
    return rows;
}

} // namespace

std::pair<int64_t, int64_t> visibleRange(const MaskSpec& spec, int64_t queryRow, int64_t numKeys) {
    const int64_t p = spec.queryOffset + queryRow;
    int64_t lo = 0;
    int64_t hi = numKeys;
    if (spec.causal) hi = std::min(hi, p + 1);
    if (spec.slidingWindow > 0) {
        lo = std::clamp<int64_t>(p - spec.slidingWindow + 1, 0, numKeys);
        if (!spec.causal) hi = std::min(hi, p + spec.slidingWindow);
    }
    return { lo, std::max(lo, hi) };
}

namespace {

/// Writes -inf over the masked entries of keys [from, to) of one score row, held in window[0, to - from) (bias and
/// keep masks are whole rows).
void maskSpan(const MaskSpec& spec, int64_t queryRow, float* window, int64_t from, int64_t to, int64_t numKeys,
    const float* keepRow, const float* biasRow) {
    RowArrayMap r(window, to - from);
    if (biasRow) r += ConstRowArrayMap(biasRow + from, to - from);
    if (keepRow) r = (ConstRowArrayMap(keepRow + from, to - from) != 0.0f).select(r, kNegInf);
    const auto [visibleLo, visibleHi] = visibleRange(spec, queryRow, numKeys);
    const int64_t lo = std::clamp(visibleLo, from, to), hi = std::clamp(visibleHi, lo, to);
    std::fill(window, window + (lo - from), kNegInf);
    std::fill(window + (hi - from), window + (to - from), kNegInf);
    if (!spec.keyKeep.empty())
        for (int64_t j = lo; j < hi; ++j)
            if (!spec.keyKeep[static_cast<size_t>(j)]) window[j - from] = kNegInf;
}

/// The unnormalized softmax of row[a, b), in place, and 0 over the rest of row[0, n): a row whose masked keys all lie
/// outside one window (causal, sliding window). Returns the factor that normalizes it (1 / the sum), so the caller
/// multiplies as it writes the row out, as softmaxDenseAvx2 would have in place. Every exp is vectorized, unlike
/// softmaxRowsInPlace's, which must zero -inf entries: eight lanes with FMA where the CPU has AVX2 (AMD and Intel
/// alike), else Eigen's four SSE lanes.
float expWindow(float* row, int64_t n, int64_t a, int64_t b) {
    std::fill(row, row + a, 0.0f);
    std::fill(row + std::max(a, b), row + n, 0.0f);
    if (b <= a) return 1.0f;
    float sum = 0.0f;
    if (!expDenseAvx2(row + a, b - a, sum)) {
        RowArrayMap r(row + a, b - a);
        r = (r - r.maxCoeff()).exp();
        sum = r.sum();
    }
    return 1.0f / sum;
}

void maskRow(
    const MaskSpec& spec, int64_t queryRow, float* row, int64_t numKeys, const float* keepRow, const float* biasRow) {
    maskSpan(spec, queryRow, row, 0, numKeys, numKeys, keepRow, biasRow);
}

/// Hands rows [row, row + rows) of the fused [hq * q] rows to `observe`, split where one query head ends.
void observeBlock(const std::function<void(int64_t, int64_t, int64_t, const float*)>& observe, const float* block,
    int64_t row, int64_t rows, const Dims& dims) {
    for (int64_t done = 0; done < rows;) {
        const int64_t i = (row + done) % dims.nq, n = std::min(rows - done, dims.nq - i);
        observe((row + done) / dims.nq, i, n, block + done * dims.nk);
        done += n;
    }
}

/// One block of query rows (of the fused [hq * q] rows) and the keys [lo, hi) its rows see, with their scores in a
/// [rows, hi - lo] tile.
struct ScoreBlock {
    int64_t row0 = 0, rows = 0, lo = 0, hi = 0;
    float* tile = nullptr;
};

/// Masks and normalizes row r of a block's tile and writes it out: into `probs` (the fresh, zeroed [hq, q, k] result,
/// so only the visible keys are written), else in place (the product with V reads the tile), copied into `observed`
/// (full [rows, k] rows, zeros outside the keys) when an observer wants them.
void finishRow(const ScoreBlock& block, int64_t r, const AttentionOptions& options, const Dims& dims, float* probs,
    float* observed) {
    const MaskSpec& spec = options.mask;
    const int64_t width = block.hi - block.lo;
    float* row = block.tile + r * width;
    if (options.softcap > 0.0f) {
        RowArrayMap s(row, width);
        s = (s / options.softcap).tanh() * options.softcap;
    }
    const int64_t h = (block.row0 + r) / dims.nq;
    const int64_t i = (block.row0 + r) % dims.nq;
    const float* keep = perHeadRows(spec.keepMask, h, dims);
    const float* bias = perHeadRows(spec.bias, h, dims);
    float factor = 1.0f;
    // Keys masked inside the window, or a short one: -inf, then the exact softmax.
    if (keep || bias || !spec.keyKeep.empty() || width < kWindowSoftmaxMinKeys) {
        maskSpan(spec, i, row, block.lo, block.hi, dims.nk, keep ? keep + i * dims.nk : nullptr,
            bias ? bias + i * dims.nk : nullptr);
        softmaxRowsInPlace(row, 1, width);
    } else {
        const auto [visibleLo, visibleHi] = visibleRange(spec, i, dims.nk);
        factor = expWindow(row, width, std::clamp(visibleLo, block.lo, block.hi) - block.lo,
            std::clamp(visibleHi, block.lo, block.hi) - block.lo);
    }
    const float headScale = options.headScale.empty() ? 1.0f : options.headScale[static_cast<size_t>(h)];
    float* out = probs ? probs + (block.row0 + r) * dims.nk + block.lo : row;
    RowArrayMap o(out, width);
    o = ConstRowArrayMap(row, width) * factor;
    if (headScale != 1.0f) o *= headScale;
    if (observed) {
        float* full = observed + r * dims.nk;
        std::fill(full, full + block.lo, 0.0f);
        std::copy_n(row, width, full + block.lo);
        std::fill(full + block.hi, full + dims.nk, 0.0f);
    }
}

/// The score tile of a call, taken from the thread's spare and handed back when the call ends: a decode step makes one
/// small call per layer and kv head, and a fresh zero-filled tile each time was a measurable share of a small model's
/// step. A call made inside another on the same thread (an observer's) finds no spare and allocates its own.
struct SpareTile {
    explicit SpareTile(size_t floats)
        : tile(std::move(spare()))
    {
        if (tile.size() < floats) tile.resize(floats);
    }
    ~SpareTile() { spare() = std::move(tile); }
    SpareTile(const SpareTile&) = delete;
    SpareTile& operator=(const SpareTile&) = delete;
    static std::vector<float>& spare()
    {
        thread_local std::vector<float> kept;
        return kept;
    }
    std::vector<float> tile;
};

/// One attention call: probabilities (and optionally the output), one key/value head at a time.
/// The query heads sharing a kv head are adjacent in q ([hq, q, d]), so their rows form one contiguous
/// [group * q, d] block: one GEMM per kv head and row block reads K and V once (this is what makes GQA decode steps
/// cheap). Each row block multiplies only the keys some row of it can see (a causal prefill skips the masked half) into
/// a tile that stays in cache while its rows are masked, normalized (on every core) and written out, and for the
/// output multiplied by V.
void attend(const Tensor& q, const float* const* keys, const float* const* values, const AttentionOptions& options,
    const Dims& dims, float* probs, float* output)
{
    if (dims.nq == 0 || dims.nk == 0)
        return; // no keys: every row is fully masked, so probabilities and output stay zero
    const float scale = options.scale != 0.0f ? options.scale : 1.0f / std::sqrt(static_cast<float>(dims.d));
    const int64_t group = dims.hq / dims.hkv;
    const int64_t fusedRows = group * dims.nq;
    const int64_t tileFloats = dims.d >= kWideHeadDim ? 2 * kTileFloats : kTileFloats;
    const int64_t blockRows = std::clamp<int64_t>(tileFloats / dims.nk, 1, fusedRows);
    SpareTile spare(static_cast<size_t>(blockRows * dims.nk));
    std::vector<float>& tile = spare.tile;
    // Without probabilities, an observer still sees whole rows.
    std::vector<float> observed(options.observeRows && !probs ? static_cast<size_t>(blockRows * dims.nk) : 0);
    const MaskSpec& spec = options.mask;

    for (int64_t kvh = 0; kvh < dims.hkv; ++kvh) {
        const int64_t firstRow = kvh * fusedRows; // row index into [hq * q]
        for (int64_t r0 = 0; r0 < fusedRows;) {
            if (options.cancelRequested && (*options.cancelRequested)()) throw Cancelled();
            // Whole heads per block when they fit, else a block within one head (so the visible keys stay narrow).
            const int64_t rows = dims.nq <= blockRows ? std::min(fusedRows - r0, blockRows / dims.nq * dims.nq)
                                                      : std::min(blockRows, dims.nq - r0 % dims.nq);
            ScoreBlock block { firstRow + r0, rows, dims.nk, 0, tile.data() };
            for (int64_t r = 0; r < rows; ++r) {
                const auto [rowLo, rowHi] = visibleRange(spec, (r0 + r) % dims.nq, dims.nk);
                if (rowLo < rowHi) {
                    block.lo = std::min(block.lo, rowLo);
                    block.hi = std::max(block.hi, rowHi);
                }
            }
            float* const observedRows = observed.empty() ? nullptr : observed.data();
            float* const finalRows = probs ? probs + block.row0 * dims.nk : observedRows;
            if (block.hi <= block.lo) { // every row fully masked: zero probabilities, zero output
                if (observedRows) std::fill_n(observedRows, rows * dims.nk, 0.0f);
                if (output) std::fill_n(output + block.row0 * dims.dv, rows * dims.dv, 0.0f);
                if (options.observeRows) observeBlock(*options.observeRows, finalRows, block.row0, rows, dims);
                r0 += rows;
                continue;
            }
            const int64_t width = block.hi - block.lo;
            gemmStrided(rows, width, dims.d, scale, q.data() + block.row0 * dims.d, dims.d,
                keys[kvh] + block.lo * dims.d, dims.d, true, block.tile, width);
            // The tile is still in cache: mask, normalize and write out its rows now, on whichever cores are free (the
            // GUI thread computes tiles too, and never waits for a pool another thread holds).
            if (rows * width < kParallelMinScores) { // the calling thread alone, without a task to hand out
                for (int64_t r = 0; r < rows; ++r)
                    finishRow(block, r, options, dims, probs, observedRows);
            } else {
                const int64_t chunks = std::min(rows, kRowChunks);
                parallelForIfIdle(chunks, [&](int64_t c) {
                    for (int64_t r = c * rows / chunks; r < (c + 1) * rows / chunks; ++r)
                        finishRow(block, r, options, dims, probs, observedRows);
                });
            }
            if (options.observeRows) observeBlock(*options.observeRows, finalRows, block.row0, rows, dims);
            if (output) {
                const float* weights = probs ? probs + block.row0 * dims.nk + block.lo : block.tile;
                gemmStrided(rows, dims.dv, width, 1.0f, weights, probs ? dims.nk : width,
                    values[kvh] + block.lo * dims.dv, dims.dv, false, output + block.row0 * dims.dv, dims.dv);
            }
            r0 += rows;
        }
    }
}

/// A zero-filled tensor of `shape` for a call's probabilities. glibc maps every allocation over 32 MB afresh, and a
/// vector's zero-filling then faults its pages in one at a time on one core: 13-22 ms of CPU for the 33 MB of 2 heads
/// at 2,048 tokens on the development VM (1.6-2.6 us a 4 KB page), as much as all the arithmetic. Here the cores that are
/// free map parts of it first, so the zero-filling runs over mapped pages.
Tensor zeroedResult(const Shape& shape) {
    const int64_t n = shapeNumel(shape, "attention result");
    std::vector<float> data;
    data.reserve(static_cast<size_t>(n));
    if (n >= kPopulateMinFloats) {
        auto* bytes = reinterpret_cast<char*>(data.data());
        parallelForIfIdle(kPopulateParts, [&](int64_t part) {
            const int64_t from = part * n / kPopulateParts, to = (part + 1) * n / kPopulateParts;
            populatePages(bytes + from * int64_t(sizeof(float)), (to - from) * int64_t(sizeof(float)));
        });
    }
    data.resize(static_cast<size_t>(n));
    return Tensor(shape, std::move(data));
}

} // namespace

AttentionResult multiHeadAttention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& options) {
    const Dims dims = checkShapes(q, k, &v, options);
    AttentionResult result;
    if (options.wantProbs) result.probs = zeroedResult({ dims.hq, dims.nq, dims.nk });
    result.output = Tensor({ dims.hq, dims.nq, dims.dv });
    attend(q, headRows(k).data(), headRows(v).data(), options, dims, options.wantProbs ? result.probs.data() : nullptr,
        result.output.data());
    return result;
}

void multiHeadAttentionInto(const Tensor& q, std::span<const Tensor* const> keys, std::span<const Tensor* const> values,
    const AttentionOptions& options, float* probs, float* output)
{
    if (q.rank() != 3 || keys.empty() || keys.size() != values.size())
        throw Error("attention: q must be [heads, t, d] with as many key as value heads; got q "
            + shapeToString(q.shape()) + ", " + std::to_string(keys.size()) + " key and "
            + std::to_string(values.size()) + " value heads");
    const Shape &kShape = keys[0]->shape(), &vShape = values[0]->shape();
    for (size_t h = 0; h < keys.size(); ++h)
        if (kShape.size() != 3 || kShape[0] != 1 || keys[h]->shape() != kShape || values[h]->shape() != vShape
            || vShape.size() != 3 || vShape[0] != 1 || vShape[1] != kShape[1] || vShape[2] < 1)
            throw Error("attention: kv head " + std::to_string(h) + " has k " + shapeToString(keys[h]->shape()) + ", v "
                + shapeToString(values[h]->shape()) + "; expected [1, t, d] like head 0's k " + shapeToString(kShape)
                + " and v " + shapeToString(vShape));
    const Dims dims = checkDims(
        q, { q.dim(0), static_cast<int64_t>(keys.size()), q.dim(1), kShape[1], kShape[2], vShape[2] },
        [&] { return "k " + shapeToString(kShape); }, options);
    // The heads' rows: on the stack up to 64 kv heads (a decode step makes this call per layer).
    constexpr size_t kStackHeads = 64;
    const float* stackRows[2 * kStackHeads];
    std::vector<const float*> heapRows(keys.size() > kStackHeads ? 2 * keys.size() : 0);
    const float** k = heapRows.empty() ? stackRows : heapRows.data();
    const float** v = k + keys.size();
    for (size_t h = 0; h < keys.size(); ++h) {
        k[h] = keys[h]->data();
        v[h] = values[h]->data();
    }
    attend(q, k, v, options, dims, probs, output);
}

Tensor attentionProbabilities(const Tensor& q, const Tensor& k, const AttentionOptions& options) {
    const Dims dims = checkShapes(q, k, nullptr, options);
    Tensor probs = zeroedResult({ dims.hq, dims.nq, dims.nk });
    attend(q, headRows(k).data(), nullptr, options, dims, probs.data(), nullptr);
    return probs;
}

void scaleHeads(Tensor& headMajor, std::span<const float> scale) {
    if (scale.empty() || headMajor.empty()) return;
    if (headMajor.rank() < 1 || headMajor.dim(0) != static_cast<int64_t>(scale.size()))
        throw Error("scaleHeads: " + std::to_string(scale.size()) + " head scales for a tensor "
            + shapeToString(headMajor.shape()));
    const int64_t block = headMajor.numel() / headMajor.dim(0);
    for (size_t h = 0; h < scale.size(); ++h)
        RowArrayMap(headMajor.data() + static_cast<int64_t>(h) * block, block) *= scale[h];
}

void softmaxRowsInPlace(float* data, int64_t rows, int64_t cols) {
    if (cols <= 0) return;
    for (int64_t i = 0; i < rows; ++i) {
        RowArrayMap r(data + i * cols, cols);
        const float m = r.maxCoeff();
        if (m == kNegInf) {
            r.setZero();
            continue;
        }
        // Eigen's vectorized exp clamps its argument, so -inf entries are zeroed explicitly to be exactly 0.
        r = (r == kNegInf).select(0.0f, (r - m).exp());
        r *= 1.0f / r.sum();
    }
}

float logSumExp(const float* row, int64_t cols) {
    if (cols <= 0) return kNegInf;
    const ConstRowArrayMap r(row, cols);
    const float m = r.maxCoeff();
    if (m == kNegInf) return kNegInf;
    double sum = 0.0;
    for (int64_t j = 0; j < cols; ++j)
        sum += std::exp(static_cast<double>(row[j]) - m);
    return static_cast<float>(m + std::log(sum));
}

Tensor additiveMask(const MaskSpec& spec, int64_t numQueries, int64_t numKeys) {
    if (numQueries < 0 || numKeys < 0) throw Error("additiveMask: negative size");
    checkStructure(spec, numKeys);
    Tensor mask({ numQueries, numKeys });
    for (int64_t i = 0; i < numQueries; ++i)
        maskRow(spec, i, mask.data() + i * numKeys, numKeys, nullptr, nullptr);
    return mask;
}

bool keyVisible(const MaskSpec& spec, int64_t queryRow, int64_t keyCol) {
    if (queryRow < 0 || keyCol < 0) throw Error("keyVisible: negative query row or key column");
    if (!spec.keyKeep.empty()) {
        if (keyCol >= static_cast<int64_t>(spec.keyKeep.size()))
            throw Error("keyVisible: key column " + std::to_string(keyCol) + " beyond keyKeep size "
                + std::to_string(spec.keyKeep.size()));
        if (!spec.keyKeep[static_cast<size_t>(keyCol)]) return false;
    }
    const auto [lo, hi] = visibleRange(spec, queryRow, keyCol + 1);
    return keyCol >= lo && keyCol < hi;
}

} // namespace attn
