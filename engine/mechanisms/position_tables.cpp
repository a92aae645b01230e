// SPDX-License-Identifier: MIT
#include "mechanisms/position_tables.h"

#include "attention/position_bias.h"
#include "attention/rope.h"
#include "model/model_config.h"

#include <cmath>
#include <complex>

namespace attn {

Mat sinusoidalTable(int64_t tokens, int64_t dim)
{
    const Tensor table = sinusoidalPositions(tokens, dim, SinusoidLayout::Interleaved);
    using RowMajorF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    return Eigen::Map<const RowMajorF>(table.data(), tokens, dim).cast<double>();
}

Mat ropeAngles(int64_t tokens, int64_t dim, double theta)
{
    Mat angles(tokens, dim / 2);
    for (int64_t p = 0; p < tokens; ++p)
        for (int64_t i = 0; i < dim / 2; ++i)
            angles(p, i)
                = static_cast<double>(p) * std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(dim));
    return angles;
}

std::vector<double> ropeDecay(int64_t maxDistance, int64_t dim, double theta)
{
    std::vector<double> out;
    for (int64_t distance = 0; distance <= maxDistance; ++distance) {
        std::complex<double> partial = 0.0;
        double total = 0.0;
        for (int64_t i = 0; i < dim / 2; ++i) {
            const double angle = static_cast<double>(distance)
                * std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(dim));
            partial += std::polar(1.0, angle);
            total += std::abs(partial);
        }
        // Normalised so that distance 0 (partial sums 1, 2, ..., d/2) maps to 1.
        const double half = static_cast<double>(dim / 2);
        out.push_back(total / (half * (half + 1.0) / 2.0));
    }
    return out;
}

T5Bucketing t5Bucketing(const ModelConfig* config)
{
    if (!config || config->relativeBuckets <= 0) return {};
    return { config->relativeBuckets, config->relativeMaxDistance, true };
}

Mat t5BucketMatrix(int64_t tokens, bool bidirectional, const T5Bucketing& bucketing)
{
    const std::vector<int64_t> map
        = t5BucketMap(tokens, tokens, 0, bidirectional, bucketing.buckets, bucketing.maxDistance);
    using RowMajorI = Eigen::Matrix<int64_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    return Eigen::Map<const RowMajorI>(map.data(), tokens, tokens).cast<double>();
}

Mat alibiMatrix(int64_t tokens, int64_t numHeads, int64_t head)
{
    const double slope = alibiSlopes(numHeads)[static_cast<size_t>(head)];
    Mat out(tokens, tokens);
    for (int64_t i = 0; i < tokens; ++i)
        for (int64_t j = 0; j < tokens; ++j)
            out(i, j) = slope * static_cast<double>(j - i);
    return out;
}

} // namespace attn
