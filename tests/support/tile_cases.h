// SPDX-License-Identifier: MIT
#pragma once
// The mask kinds the attention source must reproduce (causal, padding, sliding window, cross, GQA), each with tiles
// that cross the mask's edges, and the check of an overview pyramid against the full matrix; shared by the CPU and the
// Vulkan attention source tests.
#include "attention/attention.h"
#include "attention_source/overview.h"
#include "backend/backend.h"
#include "core/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace attn::test {

struct TileCase {
    std::string name;
    int64_t hq, hkv, nq, nk, d;
    AttentionOptions options;
    std::vector<TileRange> tiles;
};

inline Tensor normalTensor(Shape shape, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    Tensor t(std::move(shape));
    for (int64_t i = 0; i < t.numel(); ++i)
        t.data()[i] = dist(rng);
    return t;
}

inline std::vector<TileCase> tileCases()
{
    std::vector<TileCase> cases;
    AttentionOptions causal;
    causal.mask.causal = true;
    cases.push_back({ "causal", 2, 2, 37, 37, 16, causal,
        { { 0, 0, 37, 0, 37 }, { 1, 10, 20, 5, 30 }, { 0, 36, 37, 0, 37 }, { 1, 3, 4, 3, 4 }, { 0, 0, 5, 30, 37 } } });

    AttentionOptions padding; // bidirectional encoder with padded keys in the middle and at the end
    padding.mask.keyKeep.assign(41, 1);
    for (int64_t j : { 6, 7, 37, 38, 39, 40 })
        padding.mask.keyKeep[static_cast<size_t>(j)] = 0;
    cases.push_back({ "padding", 3, 3, 41, 41, 16, padding,
        { { 2, 0, 41, 0, 41 }, { 0, 4, 12, 5, 9 }, { 1, 30, 41, 35, 41 }, { 2, 40, 41, 0, 41 } } });

    AttentionOptions window = causal;
    window.mask.slidingWindow = 9;
    cases.push_back({ "sliding-window", 2, 2, 50, 50, 16, window,
        { { 0, 0, 50, 0, 50 }, { 1, 20, 30, 10, 25 }, { 0, 9, 10, 0, 2 }, { 1, 45, 50, 38, 50 } } });

    AttentionOptions cross; // target queries over source keys, the source padded at its end
    cross.mask.keyKeep.assign(29, 1);
    cross.mask.keyKeep[27] = cross.mask.keyKeep[28] = 0;
    cases.push_back(
        { "cross", 4, 4, 13, 29, 8, cross, { { 3, 0, 13, 0, 29 }, { 0, 2, 9, 20, 29 }, { 2, 12, 13, 26, 28 } } });

    AttentionOptions gqa = causal; // 6 query heads over 2 KV heads, decode-style query offset
    gqa.mask.queryOffset = 4;
    cases.push_back({ "gqa", 6, 2, 29, 33, 16, gqa,
        { { 5, 0, 29, 0, 33 }, { 2, 0, 10, 0, 8 }, { 3, 10, 20, 12, 33 }, { 4, 28, 29, 30, 33 } } });
    return cases;
}

/// Rows/columns of one head of a materialized [heads, q, k] tensor.
inline Tensor sliceTile(const Tensor& full, const TileRange& r)
{
    Tensor out({ r.q1 - r.q0, r.k1 - r.k0 });
    for (int64_t i = r.q0; i < r.q1; ++i)
        for (int64_t j = r.k0; j < r.k1; ++j)
            out.at({ i - r.q0, j - r.k0 }) = full.at({ r.head, i, j });
    return out;
}

/// The largest difference of any cell of any level of `overview` from the block max or block mean (masked entries
/// counting as 0) of head `head` of a materialized [heads, q, k] tensor; infinity when a level's shape is not the
/// blocks' of [q, k].
inline double pyramidError(const Overview& overview, const Tensor& full, int64_t head)
{
    const int64_t nq = full.dim(1), nk = full.dim(2);
    double err = 0;
    for (const OverviewLevel& level : overview.levels) {
        if (level.rows != (nq + level.block - 1) / level.block || level.cols != (nk + level.block - 1) / level.block)
            return INFINITY;
        for (int64_t r = 0; r < level.rows; ++r)
            for (int64_t c = 0; c < level.cols; ++c) {
                double sum = 0, count = 0;
                float max = 0;
                for (int64_t i = r * level.block; i < std::min(nq, (r + 1) * level.block); ++i)
                    for (int64_t j = c * level.block; j < std::min(nk, (c + 1) * level.block); ++j) {
                        const float p = full.at({ head, i, j });
                        sum += p;
                        ++count;
                        max = std::max(max, p);
                    }
                err = std::max(err, std::fabs(double(level.maxAt(r, c)) - max));
                err = std::max(err, std::fabs(double(level.meanAt(r, c)) - sum / count));
            }
    }
    return err;
}

inline std::string describeTile(const TileRange& r)
{
    return "head " + std::to_string(r.head) + " rows " + std::to_string(r.q0) + ".." + std::to_string(r.q1) + " cols "
        + std::to_string(r.k0) + ".." + std::to_string(r.k1);
}

} // namespace attn::test
