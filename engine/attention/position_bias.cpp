// SPDX-License-Identifier: MIT
#include "attention/position_bias.h"

#include "core/error.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace attn {

std::vector<float> alibiSlopes(int64_t numHeads) {
    if (numHeads < 1) throw Error("alibiSlopes: need at least one head, got " + std::to_string(numHeads));
    int64_t closest = 1; // largest power of two <= numHeads
    while (closest * 2 <= numHeads)
        closest *= 2;
    // HF build_alibi_tensor: base^k with base = 2^(-8/closest), k = 1..closest; then the odd powers of
    // 2^(-8/(2 closest)) for the remaining heads. Evaluated exactly as powers of two.
    std::vector<float> slopes;
    slopes.reserve(static_cast<size_t>(numHeads));
    for (int64_t k = 1; k <= closest; ++k)
        slopes.push_back(static_cast<float>(std::exp2(-8.0 * static_cast<double>(k) / static_cast<double>(closest))));
    for (int64_t m = 0; m < numHeads - closest; ++m)
        slopes.push_back(
            static_cast<float>(std::exp2(-8.0 * static_cast<double>(2 * m + 1) / static_cast<double>(2 * closest))));
    return slopes;
}

Tensor alibiBias(const std::vector<float>& slopes, int64_t numQueries, int64_t numKeys, int64_t queryOffset) {
    if (numQueries < 0 || numKeys < 0 || queryOffset < 0) throw Error("alibiBias: negative size or offset");
    const int64_t heads = static_cast<int64_t>(slopes.size());
    Tensor bias({ heads, numQueries, numKeys });
    float* out = bias.data();
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t i = 0; i < numQueries; ++i)
            for (int64_t j = 0; j < numKeys; ++j)
                *out++ = slopes[static_cast<size_t>(h)] * static_cast<float>(j - (queryOffset + i));
    return bias;
}

namespace {

void checkBucketParams(int64_t numBuckets, int64_t maxDistance, bool bidirectional) {
    const int64_t half = bidirectional ? numBuckets / 2 : numBuckets;
    if (half / 2 < 1 || maxDistance <= half / 2)
        throw Error("T5 relative buckets: numBuckets " + std::to_string(numBuckets) + " and maxDistance "
            + std::to_string(maxDistance) + " leave no logarithmic range");
}

int64_t bucketUnchecked(int64_t relativePosition, bool bidirectional, int64_t numBuckets, int64_t maxDistance) {
    int64_t bucket = 0;
    int64_t n = relativePosition;
    if (bidirectional) {
        numBuckets /= 2;
        if (n > 0) bucket += numBuckets;
        n = n < 0 ? -n : n;
    } else {
        n = n < 0 ? -n : 0;
    }
    const int64_t maxExact = numBuckets / 2;
    if (n < maxExact) return bucket + n;
    // torch evaluates this in float32: log(float(n) / maxExact) / float(log(maxDistance / maxExact)) * (nb - maxExact)
    const float ratio = static_cast<float>(n) / static_cast<float>(maxExact);
    const float logRange
        = static_cast<float>(std::log(static_cast<double>(maxDistance) / static_cast<double>(maxExact)));
    const float scaled = std::log(ratio) / logRange * static_cast<float>(numBuckets - maxExact);
    const int64_t large = maxExact + static_cast<int64_t>(scaled);
    return bucket + std::min(large, numBuckets - 1);
}

} // namespace

int64_t t5RelativeBucket(int64_t relativePosition, bool bidirectional, int64_t numBuckets, int64_t maxDistance) {
    checkBucketParams(numBuckets, maxDistance, bidirectional);
    return bucketUnchecked(relativePosition, bidirectional, numBuckets, maxDistance);
}

std::vector<int64_t> t5BucketMap(int64_t numQueries, int64_t numKeys, int64_t queryOffset, bool bidirectional,
    int64_t numBuckets, int64_t maxDistance) {
    checkBucketParams(numBuckets, maxDistance, bidirectional);
    if (numQueries < 0 || numKeys < 0 || queryOffset < 0) throw Error("t5BucketMap: negative size or offset");
    std::vector<int64_t> map;
    map.reserve(static_cast<size_t>(numQueries * numKeys));
    for (int64_t i = 0; i < numQueries; ++i)
        for (int64_t j = 0; j < numKeys; ++j)
            map.push_back(bucketUnchecked(j - (queryOffset + i), bidirectional, numBuckets, maxDistance));
    return map;
}

Tensor t5PositionBias(const Tensor& table, int64_t numQueries, int64_t numKeys, int64_t queryOffset, bool bidirectional,
    int64_t numBuckets, int64_t maxDistance) {
    const std::vector<int64_t> map
        = t5BucketMap(numQueries, numKeys, queryOffset, bidirectional, numBuckets, maxDistance);
    if (table.rank() != 2 || table.dim(0) != numBuckets)
        throw Error("t5PositionBias: relative_attention_bias table has shape " + shapeToString(table.shape())
            + ", expected [" + std::to_string(numBuckets) + ", heads]");
    const int64_t heads = table.dim(1);
    Tensor bias({ heads, numQueries, numKeys });
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t ij = 0; ij < numQueries * numKeys; ++ij)
            bias.data()[h * numQueries * numKeys + ij] = table.data()[map[static_cast<size_t>(ij)] * heads + h];
    return bias;
}

} // namespace attn
