// SPDX-License-Identifier: MIT
#include "analysis/head_stats.h"

#include "core/error.h"

#include <Eigen/Core>

#include <cmath>
#include <cstdlib>

namespace attn {

void HeadStatsAccumulator::add(const float* probs, int64_t rows, int64_t numKeys, const MaskSpec& mask) {
    if (rows <= 0 || numKeys <= 0)
        throw Error("head statistics: empty attention matrix (" + std::to_string(rows) + " x "
            + std::to_string(numKeys) + ")");
    // Masked probabilities are exactly 0 (the attention core's contract), so each row's sums run over the keys the
    // causal and window rules leave visible only, vectorized in double: a derived run summarizes every head of a
    // long input inside its forward pass (SummaryCollector), where a per-key scalar loop cost a third of the pass.
    Eigen::ArrayXd widened(numKeys); // one buffer for every row: a row's length changes, its storage does not
    for (int64_t i = 0; i < rows; ++i) {
        const float* row = probs + i * numKeys;
        const int64_t pos = mask.queryOffset + i;
        const auto [lo, hi] = visibleRange(mask, i, numKeys);
        int64_t visible = hi - lo;
        if (!mask.keyKeep.empty())
            for (int64_t j = lo; j < hi; ++j)
                if (!mask.keyKeep[static_cast<size_t>(j)]) --visible;
        const int64_t n = hi - lo;
        auto p = widened.head(n);
        p = Eigen::Map<const Eigen::ArrayXf>(row + lo, n).cast<double>();
        const auto keys = Eigen::ArrayXd::LinSpaced(n, static_cast<double>(lo), static_cast<double>(hi - 1));
        const auto distance = (static_cast<double>(pos) - keys).abs();
        const double total = p.sum();
        const double h = -(p > 0.0).select(p * p.log(), 0.0).sum();
        const double dist = (p * distance).sum();
        if (visible == 0 || total <= 0) continue;
        m_entropy.add(h);
        if (visible >= 2) m_normalized.add(h / std::log(static_cast<double>(visible)));
        m_distance.add(dist);
        m_sink.add(row[0]);
        if (pos >= 1 && pos - 1 < numKeys) m_previous.add(row[pos - 1]);
        if (pos < numKeys) m_diagonal.add(row[pos]);
    }
}

HeadStats HeadStatsAccumulator::result() const {
    HeadStats s;
    s.entropy = m_entropy.value();
    s.normalizedEntropy = m_normalized.value();
    s.meanDistance = m_distance.value();
    s.sinkMass = m_sink.value();
    s.previousToken = m_previous.value();
    s.diagonal = m_diagonal.value();
    s.rows = m_entropy.count;
    return s;
}

HeadStats computeHeadStats(const float* probs, int64_t numQueries, int64_t numKeys, const MaskSpec& mask) {
    HeadStatsAccumulator stats;
    stats.add(probs, numQueries, numKeys, mask);
    return stats.result();
}

std::vector<HeadStats> computeLayerHeadStats(const Tensor& probs, const MaskSpec& mask) {
    if (probs.rank() != 3)
        throw Error("head statistics: expected [heads, q, k] probabilities, got " + shapeToString(probs.shape()));
    const int64_t heads = probs.dim(0), q = probs.dim(1), k = probs.dim(2);
    std::vector<HeadStats> out;
    out.reserve(static_cast<size_t>(heads));
    for (int64_t h = 0; h < heads; ++h)
        out.push_back(computeHeadStats(probs.data() + h * q * k, q, k, mask));
    return out;
}

unsigned classifyHead(const HeadStats& stats, const HeadRoleThresholds& thresholds) {
    unsigned roles = RoleNone;
    if (stats.previousToken >= thresholds.previousToken) roles |= RolePreviousToken;
    if (stats.sinkMass >= thresholds.sink) roles |= RoleSink;
    if (stats.normalizedEntropy >= thresholds.broad) roles |= RoleBroad;
    return roles;
}

std::string headRoleNames(unsigned roles) {
    std::string out;
    const auto add = [&](unsigned bit, const char* name) {
        if (!(roles & bit)) return;
        if (!out.empty()) out += ", ";
        out += name;
    };
    add(RolePreviousToken, "previous-token");
    add(RoleSink, "sink");
    add(RoleBroad, "broad");
    return out;
}

} // namespace attn
