// SPDX-License-Identifier: MIT
#include "analysis/head_clusters.h"

#include "core/error.h"

#include <Eigen/Core>

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

namespace attn {

HeadPatterns::HeadPatterns(int64_t layers, int64_t heads)
    : m_layers(layers)
    , m_heads(heads)
    , m_rows(static_cast<size_t>(layers * heads))
{
    if (layers < 1 || heads < 1)
        throw Error("head patterns: " + std::to_string(layers) + " layers x " + std::to_string(heads) + " heads");
}

void HeadPatterns::add(const std::vector<Tensor>& attention)
{
    if (static_cast<int64_t>(attention.size()) != m_layers || attention.front().shape().size() != 3)
        throw Error("head patterns: " + std::to_string(attention.size()) + " attention layers for a map of "
            + std::to_string(m_layers));
    const int64_t n = attention.front().dim(2);
    for (const Tensor& a : attention)
        a.expectShape({ m_heads, n, n }, "head pattern attention");
    const int64_t g = std::min(n, kPatternGrid);
    const auto edge = [&](int64_t block) { return block * n / g; }; // blocks differ by at most one row
    for (int64_t l = 0; l < m_layers; ++l)
        for (int64_t h = 0; h < m_heads; ++h) {
            const float* head = attention[static_cast<size_t>(l)].data() + h * n * n;
            std::vector<float>& row = m_rows[static_cast<size_t>(l * m_heads + h)];
            for (int64_t a = 0; a < g; ++a)
                for (int64_t b = 0; b < g; ++b) {
                    double sum = 0.0;
                    for (int64_t q = edge(a); q < edge(a + 1); ++q)
                        for (int64_t j = edge(b); j < edge(b + 1); ++j)
                            sum += head[q * n + j];
                    row.push_back(static_cast<float>(
                        sum / static_cast<double>((edge(a + 1) - edge(a)) * (edge(b + 1) - edge(b)))));
                }
        }
    ++m_inputs;
}

Tensor HeadPatterns::features() const
{
    const auto d = static_cast<int64_t>(m_rows.front().size());
    std::vector<float> data;
    data.reserve(m_rows.size() * static_cast<size_t>(d));
    for (const std::vector<float>& row : m_rows)
        data.insert(data.end(), row.begin(), row.end());
    return Tensor({ static_cast<int64_t>(m_rows.size()), d }, std::move(data));
}

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Pearson correlation of every pair of rows; a constant row correlates 0 with the others.
Tensor correlation(const Tensor& features)
{
    const int64_t heads = features.dim(0), d = features.dim(1);
    RowMatrix z = Eigen::Map<const RowMatrix>(features.data(), heads, d);
    for (int64_t i = 0; i < heads; ++i) {
        z.row(i).array() -= z.row(i).mean();
        const float norm = z.row(i).norm();
        if (norm > 0.0f)
            z.row(i) /= norm;
        else
            z.row(i).setZero();
    }
    Tensor out({ heads, heads });
    Eigen::Map<RowMatrix>(out.data(), heads, heads).noalias() = z * z.transpose();
    for (int64_t i = 0; i < heads; ++i)
        out.data()[i * heads + i] = 1.0f;
    return out;
}

struct Merge {
    int64_t a, b; ///< a leaf of each side
    double height;
};

/// Average-linkage merges by the nearest-neighbour chain (O(heads^2)): average linkage is reducible, so the merges it
/// finds, sorted by height, are the dendrogram the naive algorithm builds.
std::vector<Merge> averageLinkage(const Tensor& similarity)
{
    const int64_t n = similarity.dim(0);
    std::vector<double> dist(static_cast<size_t>(n * n));
    for (int64_t i = 0; i < n * n; ++i)
        dist[static_cast<size_t>(i)] = std::clamp(1.0 - static_cast<double>(similarity.data()[i]), 0.0, 2.0);
    const auto at = [&](int64_t i, int64_t j) -> double& { return dist[static_cast<size_t>(i * n + j)]; };
    std::vector<double> size(static_cast<size_t>(n), 1.0);
    std::vector<bool> active(static_cast<size_t>(n), true);
    std::vector<int64_t> chain;
    std::vector<Merge> merges;
    int64_t next = 0; // the lowest slot that may still be active
    while (static_cast<int64_t>(merges.size()) < n - 1) {
        if (chain.empty()) {
            while (!active[static_cast<size_t>(next)])
                ++next;
            chain.push_back(next);
        }
        const int64_t a = chain.back();
        const int64_t previous = chain.size() >= 2 ? chain[chain.size() - 2] : -1;
        // Ties go to the previous link, so the chain always ends in a reciprocal pair.
        int64_t best = previous;
        double bestDistance = previous >= 0 ? at(a, previous) : std::numeric_limits<double>::infinity();
        for (int64_t c = 0; c < n; ++c)
            if (c != a && active[static_cast<size_t>(c)] && at(a, c) < bestDistance) {
                best = c;
                bestDistance = at(a, c);
            }
        if (best != previous) {
            chain.push_back(best);
            continue;
        }
        chain.resize(chain.size() - 2);
        merges.push_back({ a, previous, bestDistance });
        // The merged cluster lives on in slot a (Lance-Williams update for average linkage).
        const double sa = size[static_cast<size_t>(a)], sb = size[static_cast<size_t>(previous)];
        for (int64_t c = 0; c < n; ++c)
            if (active[static_cast<size_t>(c)] && c != a && c != previous)
                at(a, c) = at(c, a) = (sa * at(a, c) + sb * at(previous, c)) / (sa + sb);
        size[static_cast<size_t>(a)] = sa + sb;
        active[static_cast<size_t>(previous)] = false;
    }
    std::stable_sort(merges.begin(), merges.end(), [](const Merge& x, const Merge& y) { return x.height < y.height; });
    return merges;
}

int64_t findRoot(std::vector<int64_t>& parent, int64_t i)
{
    while (parent[static_cast<size_t>(i)] != i)
        i = parent[static_cast<size_t>(i)] = parent[static_cast<size_t>(parent[static_cast<size_t>(i)])];
    return i;
}

} // namespace

HeadClusters clusterHeads(const Tensor& features, int64_t clusters)
{
    if (features.shape().size() != 2 || features.dim(0) < 1 || features.dim(1) < 1)
        throw Error("head clusters: need at least one head with a signature");
    if (clusters < 1) throw Error("head clusters: need at least one cluster, not " + std::to_string(clusters));
    const int64_t n = features.dim(0);
    HeadClusters out;
    out.similarity = correlation(features);
    const std::vector<Merge> merges = averageLinkage(out.similarity);

    // Dendrogram nodes: leaves 0..n-1, merge k makes node n + k. Union-find maps a leaf to its current node.
    std::vector<int64_t> parent(static_cast<size_t>(n)), node(static_cast<size_t>(n)), lowest(static_cast<size_t>(n));
    std::iota(parent.begin(), parent.end(), 0);
    std::iota(node.begin(), node.end(), 0);
    std::iota(lowest.begin(), lowest.end(), 0);
    std::vector<std::pair<int64_t, int64_t>> children; // of node n + k
    std::vector<int64_t> groupOf(static_cast<size_t>(n));
    const int64_t cut = n - std::min(clusters, n); // merges inside clusters
    for (size_t k = 0; k < merges.size(); ++k) {
        if (static_cast<int64_t>(k) == cut)
            for (int64_t i = 0; i < n; ++i)
                groupOf[static_cast<size_t>(i)] = findRoot(parent, i);
        int64_t ra = findRoot(parent, merges[k].a), rb = findRoot(parent, merges[k].b);
        if (lowest[static_cast<size_t>(rb)] < lowest[static_cast<size_t>(ra)])
            std::swap(ra, rb); // stable reading order
        children.emplace_back(node[static_cast<size_t>(ra)], node[static_cast<size_t>(rb)]);
        parent[static_cast<size_t>(rb)] = ra;
        node[static_cast<size_t>(ra)] = n + static_cast<int64_t>(k);
    }
    if (cut == static_cast<int64_t>(merges.size()))
        for (int64_t i = 0; i < n; ++i)
            groupOf[static_cast<size_t>(i)] = findRoot(parent, i);

    std::vector<int64_t> stack { n == 1 ? 0 : 2 * n - 2 };
    while (!stack.empty()) {
        const int64_t at = stack.back();
        stack.pop_back();
        if (at < n) {
            out.order.push_back(at);
            continue;
        }
        const auto& [left, right] = children[static_cast<size_t>(at - n)];
        stack.push_back(right);
        stack.push_back(left);
    }
    out.cluster.assign(static_cast<size_t>(n), -1);
    std::vector<int64_t> number(static_cast<size_t>(n), -1); // union-find root -> cluster number
    for (const int64_t head : out.order) {
        int64_t& c = number[static_cast<size_t>(groupOf[static_cast<size_t>(head)])];
        if (c < 0) c = out.count++;
        out.cluster[static_cast<size_t>(head)] = c;
    }
    return out;
}

} // namespace attn
