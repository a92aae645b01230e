// SPDX-License-Identifier: MIT
#include "mechanisms/matrix_snapshot.h"

#include <algorithm>

namespace attn::ui {

namespace {

/// The snapshot of the R x C matrix whose entry (i, j) is value(i, j), as float.
template <class Value>
SnapshotPtr tiledSnapshot(Eigen::Index R, Eigen::Index C, const Value& value, std::vector<TokenChip> rows,
    std::vector<TokenChip> cols, MaskSpec mask)
{
    // The values are column-major and the snapshot row-major: the copy goes tile by tile, so that neither side is
    // read or written a whole row or column apart at every entry (a plain cast did, and took most of a [4,096, 4,096]
    // map's copy in cache misses).
    constexpr Eigen::Index kTile = 64;
    Tensor layer({ 1, R, C });
    float* out = layer.data();
    for (Eigen::Index j0 = 0; j0 < C; j0 += kTile)
        for (Eigen::Index i0 = 0; i0 < R; i0 += kTile)
            for (Eigen::Index i = i0; i < std::min(R, i0 + kTile); ++i)
                for (Eigen::Index j = j0; j < std::min(C, j0 + kTile); ++j)
                    out[i * C + j] = static_cast<float>(value(i, j));
    std::vector<Tensor> layers;
    layers.push_back(std::move(layer));
    if (cols.empty())
        return std::make_shared<const AttentionSnapshot>(std::move(rows), std::move(layers), 1, std::move(mask),
            std::vector<TokenChip> {}, AttentionSnapshot::Stats::Skip);
    // Keys = columns, queries = rows (the snapshot's cross-attention layout).
    return std::make_shared<const AttentionSnapshot>(
        std::move(cols), std::move(layers), 1, std::move(mask), std::move(rows), AttentionSnapshot::Stats::Skip);
}

} // namespace

SnapshotPtr matrixSnapshot(const Mat& values, std::vector<TokenChip> rows, std::vector<TokenChip> cols, MaskSpec mask)
{
    return tiledSnapshot(
        values.rows(), values.cols(), [&](Eigen::Index i, Eigen::Index j) { return values(i, j); }, std::move(rows),
        std::move(cols), std::move(mask));
}

SnapshotPtr differenceSnapshot(
    const Mat& a, const Mat& b, std::vector<TokenChip> rows, std::vector<TokenChip> cols, MaskSpec mask)
{
    return tiledSnapshot(
        a.rows(), a.cols(), [&](Eigen::Index i, Eigen::Index j) { return a(i, j) - b(i, j); }, std::move(rows),
        std::move(cols), std::move(mask));
}

std::vector<TokenChip> indexChips(const QString& prefix, int64_t count)
{
    std::vector<TokenChip> out;
    for (int64_t i = 0; i < count; ++i)
        out.push_back({ (prefix + QString::number(i)).toStdString(), i, false });
    return out;
}

} // namespace attn::ui
