// SPDX-License-Identifier: MIT
#include "intervention/comparison.h"

#include "intervention/attention_compare.h"
#include "mechanisms/matrix_snapshot.h"

#include <algorithm>

namespace attn::ui {
namespace {

/// The matrix [queries, keys] of `run` at side `side` of the selection (the head mean of the layer for headMeans).
Tensor pattern(const AttentionSnapshot& run, const CompareSelection& s, int side)
{
    const int64_t layer = std::clamp<int64_t>(s.layer[side], 0, run.numLayers() - 1);
    const int64_t q = run.numQueries(), k = run.numKeys();
    if (!s.headMeans) return *run.rows(layer, std::clamp<int64_t>(s.head[side], 0, run.numHeads() - 1), 0, q);
    Tensor heads({ run.numHeads(), q, k });
    for (int64_t h = 0; h < run.numHeads(); ++h)
        std::copy_n(run.rows(layer, h, 0, q)->data(), q * k, heads.data() + h * q * k);
    return headMean(heads);
}

/// The first `rows` x `cols` of a [q, k] tensor.
Mat topLeft(const Tensor& t, int64_t rows, int64_t cols)
{
    Mat m(rows, cols);
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
            m(i, j) = t.data()[i * t.dim(1) + j];
    return m;
}

std::vector<TokenChip> firstChips(const std::vector<TokenChip>& chips, int64_t n)
{
    return { chips.begin(), chips.begin() + std::min<int64_t>(n, static_cast<int64_t>(chips.size())) };
}

} // namespace

ComparisonPtr computeComparison(const AttentionSnapshot& runA, const AttentionSnapshot& runB, const CompareSelection& s)
{
    auto out = std::make_shared<Comparison>();
    const Tensor a = pattern(runA, s, 0), b = pattern(runB, s, 1);
    out->sizeA[0] = a.dim(0), out->sizeA[1] = a.dim(1);
    out->sizeB[0] = b.dim(0), out->sizeB[1] = b.dim(1);
    const bool causal = runA.mask(0).causal && runB.mask(0).causal;
    if (!causal && (a.dim(0) != b.dim(0) || a.dim(1) != b.dim(1))) return out;
    const int64_t rows = std::min(a.dim(0), b.dim(0)), cols = std::min(a.dim(1), b.dim(1));
    out->rows = rows;
    const Mat ma = topLeft(a, rows, cols), mb = topLeft(b, rows, cols);
    MaskSpec mask;
    mask.causal = causal;
    const auto labelled = [&](const AttentionSnapshot& run, const Mat& m) {
        return run.isCross()
            ? matrixSnapshot(m, firstChips(run.queryTokens(), rows), firstChips(run.tokens(), cols), mask)
            : matrixSnapshot(m, firstChips(run.tokens(), cols), {}, mask);
    };
    out->a = labelled(runA, ma);
    out->b = labelled(runB, mb);
    out->third = labelled(
        runA, s.ratio ? Mat(mb.binaryExpr(ma, [](double vb, double va) { return log2Ratio(vb, va); })) : Mat(mb - ma));
    // Here, not when the tab draws them: the three maps' overviews scanned 2,048 x 2,048 heads on the GUI thread,
    // again at each rebuild (zoom, caption).
    for (const SnapshotPtr& map : { out->a, out->b, out->third })
        map->prepareOverviews(0, 0);
    // The metric takes the float32 rows the maps were read from.
    std::vector<float> pa(static_cast<size_t>(rows * cols)), pb(pa.size());
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
            pa[static_cast<size_t>(i * cols + j)] = static_cast<float>(ma(i, j));
            pb[static_cast<size_t>(i * cols + j)] = static_cast<float>(mb(i, j));
        }
    out->js = jsDivergencePerRow(pa.data(), pb.data(), rows, cols);
    return out;
}

} // namespace attn::ui
