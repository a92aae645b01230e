// SPDX-License-Identifier: MIT
#include "analysis/rollout.h"

#include "core/error.h"

#include <Eigen/Core>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>
#include <queue>
#include <thread>

namespace attn {
namespace {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

Matrix layerMatrix(const Tensor& a, const RolloutOptions& o)
{
    if (a.rank() != 3 || a.dim(1) != a.dim(2) || a.dim(0) < 1 || a.dim(1) < 1)
        throw Error("rollout: layer attention must be [heads, T, T], got " + shapeToString(a.shape()));
    if (!(o.discardRatio >= 0.0 && o.discardRatio < 1.0))
        throw Error("rollout: discard ratio must be in [0, 1), got " + std::to_string(o.discardRatio));
    const int64_t H = a.dim(0), T = a.dim(1);
    if (o.protectedToken < 0 || o.protectedToken >= T)
        throw Error(
            "rollout: protected token " + std::to_string(o.protectedToken) + " outside [0, " + std::to_string(T) + ")");
    Matrix m(T, T);
    for (int64_t i = 0; i < T * T; ++i) {
        double v = a.data()[i];
        for (int64_t h = 1; h < H; ++h) {
            const double x = a.data()[h * T * T + i];
            v = o.fusion == HeadFusion::Mean ? v + x : o.fusion == HeadFusion::Max ? std::max(v, x) : std::min(v, x);
        }
        m.data()[i] = o.fusion == HeadFusion::Mean ? v / static_cast<double>(H) : v;
    }
    if (o.discardRatio > 0.0) {
        const int64_t keep = o.protectedToken * T + o.protectedToken;
        std::vector<int64_t> order;
        order.reserve(static_cast<size_t>(T * T - 1));
        for (int64_t i = 0; i < T * T; ++i)
            if (i != keep) order.push_back(i);
        const auto drop = static_cast<int64_t>(std::floor(o.discardRatio * static_cast<double>(order.size())));
        // Ties broken by position so the result does not depend on the sort implementation.
        std::nth_element(order.begin(), order.begin() + drop, order.end(),
            [&](int64_t x, int64_t y) { return m.data()[x] != m.data()[y] ? m.data()[x] < m.data()[y] : x < y; });
        for (int64_t i = 0; i < drop; ++i)
            m.data()[order[static_cast<size_t>(i)]] = 0.0;
    }
    m += Matrix::Identity(T, T);
    m *= 0.5;
    // Each row (one query's distribution over keys) is renormalized; the identity keeps every row sum positive.
    for (int64_t r = 0; r < T; ++r)
        m.row(r) /= m.row(r).sum();
    return m;
}

std::vector<Matrix> layerMatrices(const std::vector<Tensor>& attention, const RolloutOptions& o)
{
    if (attention.empty()) throw Error("rollout: no attention layers");
    std::vector<Matrix> out;
    for (const Tensor& a : attention) {
        out.push_back(layerMatrix(a, o));
        if (out.back().rows() != out.front().rows())
            throw Error("rollout: layers disagree on the token count (" + shapeToString(a.shape()) + " vs "
                + shapeToString(attention.front().shape()) + ")");
    }
    return out;
}

Tensor toTensor(const Matrix& m)
{
    Tensor t({ m.rows(), m.cols() });
    for (int64_t i = 0; i < m.size(); ++i)
        t.data()[i] = static_cast<float>(m.data()[i]);
    return t;
}

/// Dinic's max flow with real capacities over a fixed graph; residual amounts below kEps count as saturated.
/// The graph is read-only once built, so several threads may run flows on it, each with its own Workspace.
class MaxFlow {
public:
    explicit MaxFlow(int64_t nodes)
        : m_first(static_cast<size_t>(nodes), -1)
    {
    }

    void addEdge(int64_t from, int64_t to, double capacity)
    {
        m_edges.push_back({ to, m_first[from] });
        m_capacity.push_back(capacity);
        m_first[from] = static_cast<int64_t>(m_edges.size()) - 1;
        m_edges.push_back({ from, m_first[to] });
        m_capacity.push_back(0.0);
        m_first[to] = static_cast<int64_t>(m_edges.size()) - 1;
    }

    struct Workspace {
        std::vector<double> residual;
        std::vector<int64_t> next, level;
    };

    double run(int64_t s, int64_t t, Workspace& w) const
    {
        w.residual = m_capacity;
        double total = 0.0;
        while (levels(s, t, w)) {
            w.next = m_first;
            while (true) {
                const double f = push(s, t, std::numeric_limits<double>::infinity(), w);
                if (f <= kEps) break;
                total += f;
            }
        }
        return total;
    }

private:
    static constexpr double kEps = 1e-12;
    struct Edge {
        int64_t to, next;
    };

    bool levels(int64_t s, int64_t t, Workspace& w) const
    {
        w.level.assign(m_first.size(), -1);
        std::queue<int64_t> q;
        w.level[s] = 0;
        q.push(s);
        while (!q.empty()) {
            const int64_t u = q.front();
            q.pop();
            for (int64_t e = m_first[u]; e >= 0; e = m_edges[e].next)
                if (w.residual[e] > kEps && w.level[m_edges[e].to] < 0) {
                    w.level[m_edges[e].to] = w.level[u] + 1;
                    q.push(m_edges[e].to);
                }
        }
        return w.level[t] >= 0;
    }

    double push(int64_t u, int64_t t, double limit, Workspace& w) const
    {
        if (u == t) return limit;
        for (int64_t& e = w.next[u]; e >= 0; e = m_edges[e].next) {
            const int64_t v = m_edges[e].to;
            if (w.residual[e] <= kEps || w.level[v] != w.level[u] + 1) continue;
            const double f = push(v, t, std::min(limit, w.residual[e]), w);
            if (f > kEps) {
                w.residual[e] -= f;
                w.residual[e ^ 1] += f;
                return f;
            }
        }
        return 0.0;
    }

    std::vector<Edge> m_edges;
    std::vector<double> m_capacity;
    std::vector<int64_t> m_first;
};

} // namespace

HeadFusion parseHeadFusion(const std::string& text)
{
    if (text == "mean") return HeadFusion::Mean;
    if (text == "max") return HeadFusion::Max;
    if (text == "min") return HeadFusion::Min;
    throw Error("head fusion \"" + text + "\" is not one of mean, max, min");
}

Tensor rolloutLayerMatrix(const Tensor& layerAttention, const RolloutOptions& options)
{
    return toTensor(layerMatrix(layerAttention, options));
}

Tensor attentionRollout(const std::vector<Tensor>& attention, const RolloutOptions& options)
{
    const std::vector<Matrix> layers = layerMatrices(attention, options);
    Matrix joint = layers.front();
    for (size_t l = 1; l < layers.size(); ++l)
        joint = (layers[l] * joint).eval();
    return toTensor(joint);
}

Tensor attentionFlow(const std::vector<Tensor>& attention, int64_t query, const RolloutOptions& options)
{
    if (!attention.empty() && attention.front().rank() == 3 && attention.front().dim(1) > kAttentionFlowMaxTokens)
        throw Error("attention flow: " + std::to_string(attention.front().dim(1)) + " tokens exceed the limit of "
            + std::to_string(kAttentionFlowMaxTokens) + " (use rollout for longer inputs)");
    const std::vector<Matrix> layers = layerMatrices(attention, options);
    const auto L = static_cast<int64_t>(layers.size());
    const int64_t T = layers.front().rows();
    if (query < 0 || query >= T)
        throw Error("attention flow: query token " + std::to_string(query) + " outside [0, " + std::to_string(T) + ")");
    // Node l * T + i is token i after l layers; flow runs from the query at the top down to one input token.
    MaxFlow graph((L + 1) * T);
    for (int64_t l = 0; l < L; ++l)
        for (int64_t i = 0; i < T; ++i)
            for (int64_t j = 0; j < T; ++j)
                if (layers[static_cast<size_t>(l)](i, j) > 0.0)
                    graph.addEdge((l + 1) * T + i, l * T + j, layers[static_cast<size_t>(l)](i, j));
    // One independent max-flow per input token: spread them over threads.
    std::vector<double> flow(static_cast<size_t>(T));
    std::atomic<int64_t> nextToken { 0 };
    auto worker = [&] {
        MaxFlow::Workspace w;
        for (int64_t j = nextToken++; j < T; j = nextToken++)
            flow[static_cast<size_t>(j)] = graph.run(L * T + query, j, w);
    };
    const auto threads = static_cast<int64_t>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
    std::vector<std::thread> pool;
    for (int64_t i = 1; i < std::min(threads, T); ++i)
        pool.emplace_back(worker);
    worker();
    for (std::thread& th : pool)
        th.join();
    const double sum = std::accumulate(flow.begin(), flow.end(), 0.0);
    Tensor out({ T });
    for (int64_t j = 0; j < T; ++j)
        out.data()[j] = static_cast<float>(flow[static_cast<size_t>(j)] / sum);
    return out;
}

} // namespace attn
