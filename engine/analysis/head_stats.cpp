// SPDX-License-Identifier: MIT
#include "analysis/head_stats.h"

#include "core/error.h"

#include <cmath>
#include <cstdlib>

namespace attn {

namespace {

// Running mean that ignores rows a statistic does not apply to.
struct Mean {
    double sum = 0;
    int64_t count = 0;
    void add(double v) {
        sum += v;
        ++count;
    }
    double value() const { return count > 0 ? sum / static_cast<double>(count) : 0.0; }
};

} // namespace

HeadStats computeHeadStats(const float* probs, int64_t numQueries, int64_t numKeys, const MaskSpec& mask) {
    if (numQueries <= 0 || numKeys <= 0)
        throw Error("head statistics: empty attention matrix (" + std::to_string(numQueries) + " x "
            + std::to_string(numKeys) + ")");
    Mean entropy, normalized, distance, sink, previous, diagonal;
    for (int64_t i = 0; i < numQueries; ++i) {
        const float* row = probs + i * numKeys;
        const int64_t pos = mask.queryOffset + i;
        double total = 0, h = 0, dist = 0;
        int64_t visible = 0;
        for (int64_t j = 0; j < numKeys; ++j) {
            const double p = row[j];
            total += p;
            if (p > 0) h -= p * std::log(p);
            dist += p * static_cast<double>(std::llabs(pos - j));
            if (keyVisible(mask, i, j)) ++visible;
        }
        if (visible == 0 || total <= 0) continue;
        entropy.add(h);
        if (visible >= 2) normalized.add(h / std::log(static_cast<double>(visible)));
        distance.add(dist);
        sink.add(row[0]);
        if (pos >= 1 && pos - 1 < numKeys) previous.add(row[pos - 1]);
        if (pos < numKeys) diagonal.add(row[pos]);
    }
    HeadStats s;
    s.entropy = entropy.value();
    s.normalizedEntropy = normalized.value();
    s.meanDistance = distance.value();
    s.sinkMass = sink.value();
    s.previousToken = previous.value();
    s.diagonal = diagonal.value();
    s.rows = entropy.count;
    return s;
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
