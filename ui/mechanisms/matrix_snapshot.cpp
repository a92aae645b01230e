// SPDX-License-Identifier: MIT
#include "mechanisms/matrix_snapshot.h"

namespace attn::ui {

SnapshotPtr matrixSnapshot(const Mat& values, std::vector<TokenChip> rows, std::vector<TokenChip> cols, MaskSpec mask)
{
    Tensor layer({ 1, values.rows(), values.cols() });
    Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
        layer.data(), values.rows(), values.cols())
        = values.cast<float>();
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
