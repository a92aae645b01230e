// SPDX-License-Identifier: MIT
#include "mechanisms/matrix_snapshot.h"

#include <algorithm>

namespace attn::ui {

SnapshotPtr matrixSnapshot(const Mat& values, std::vector<TokenChip> rows, std::vector<TokenChip> cols, MaskSpec mask)
{
    // `values` is column-major and the snapshot row-major: the copy goes tile by tile, so that neither side is read
    // or written a whole row or column apart at every entry (a plain cast did, and took most of a [4,096, 4,096]
    // map's copy in cache misses).
    constexpr Eigen::Index kTile = 64;
    const Eigen::Index R = values.rows(), C = values.cols();
    Tensor layer({ 1, R, C });
    float* out = layer.data();
    for (Eigen::Index j0 = 0; j0 < C; j0 += kTile)
        for (Eigen::Index i0 = 0; i0 < R; i0 += kTile)
            for (Eigen::Index i = i0; i < std::min(R, i0 + kTile); ++i)
                for (Eigen::Index j = j0; j < std::min(C, j0 + kTile); ++j)
                    out[i * C + j] = static_cast<float>(values(i, j));
    std::vector<Tensor> layers;
    layers.push_back(std::move(layer));
    if (cols.empty())
        return std::make_shared<const AttentionSnapshot>(std::move(rows), std::move(layers), 1, std::move(mask),
            std::vector<TokenChip> {}, AttentionSnapshot::Stats::Skip);
    // Keys = columns, queries = rows (the snapshot's cross-attention layout).
    return std::make_shared<const AttentionSnapshot>(
        std::move(cols), std::move(layers), 1, std::move(mask), std::move(rows), AttentionSnapshot::Stats::Skip);
}

std::vector<TokenChip> indexChips(const QString& prefix, int64_t count)
{
    std::vector<TokenChip> out;
    for (int64_t i = 0; i < count; ++i)
        out.push_back({ (prefix + QString::number(i)).toStdString(), i, false });
    return out;
}

} // namespace attn::ui
