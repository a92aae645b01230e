// SPDX-License-Identifier: MIT
#pragma once
// The head map's grouping: every head's attention pattern over a set of inputs as one signature, and heads clustered
// by how alike their signatures are (average linkage on 1 - Pearson correlation, the usual choice for patterns whose
// scale differs between heads).
#include "core/tensor.h"

#include <cstdint>
#include <vector>

namespace attn {

/// A pattern is averaged over blocks of at most this many rows and columns per side, so a head's signature stays
/// small on long inputs (an input of n tokens contributes min(n, kPatternGrid)^2 numbers).
constexpr int64_t kPatternGrid = 24;

/// Signatures of every head (index layer * heads + head): per input, its [n, n] attention averaged over a
/// min(n, kPatternGrid)-square grid of blocks, concatenated over the inputs in the order added.
class HeadPatterns {
public:
    HeadPatterns(int64_t layers, int64_t heads);

    /// Adds one input: per layer the attention [heads, n, n]. Throws Error when the shapes do not fit.
    void add(const std::vector<Tensor>& attention);
    int64_t inputs() const { return m_inputs; }
    /// [layers * heads, features].
    Tensor features() const;

private:
    int64_t m_layers, m_heads;
    int64_t m_inputs = 0;
    std::vector<std::vector<float>> m_rows; ///< per head
};

struct HeadClusters {
    int64_t count = 0; ///< clusters made
    std::vector<int64_t> order; ///< head indices in dendrogram leaf order: every cluster is one contiguous run
    std::vector<int64_t> cluster; ///< per head index, its cluster, numbered 0.. along `order`
    Tensor similarity; ///< [heads, heads] Pearson correlation of the signatures, in head index order
};

/// Clusters the rows of `features` [heads, d] into `clusters` groups (all heads' own when there are fewer). A row
/// without variation correlates 0 with every other row (1 with itself). Throws Error for no rows or clusters < 1.
HeadClusters clusterHeads(const Tensor& features, int64_t clusters);

} // namespace attn
