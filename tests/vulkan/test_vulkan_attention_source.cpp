// SPDX-License-Identifier: MIT
// The attention source on the Vulkan backend: for every mask kind its tiles (rows normalized over all keys by the
// device) equal the probabilities the device materializes for the whole matrix, and the CPU core's within the parity
// bound; overviews streamed through the device equal block max / mean of the materialized matrix.
#include "vulkan_test_support.h"

#include "attention_source/attention_source.h"
#include "support/tile_cases.h"

#include <algorithm>

namespace attn::test {
namespace {

// The device computes a tile and the full matrix with the same kernels on the same scores; only the row reductions
// may be split differently across workgroups, a few float32 ulps at 1.0.
constexpr double kTileTolerance = 1e-6;

class VulkanAttentionSource : public VulkanTest { };

TEST_F(VulkanAttentionSource, TilesEqualMaterializedProbabilitiesForEveryMaskKind)
{
    for (const TileCase& c : tileCases()) {
        const Tensor q = normalTensor({ c.hq, c.nq, c.d }, static_cast<uint32_t>(c.nq));
        const Tensor k = normalTensor({ c.hkv, c.nk, c.d }, static_cast<uint32_t>(c.nq + 1));
        const Tensor onDevice = vk().attentionProbabilities(q, k, c.options);
        const Tensor onCpu = attentionProbabilities(q, k, c.options);
        const AttentionSource source(
            std::make_shared<const OwnedQueryKeys>(std::vector<Tensor> { q }, std::vector<Tensor> { k }), c.options,
            &vk());
        for (const TileRange& r : c.tiles) {
            SCOPED_TRACE(c.name + " " + describeTile(r));
            const Tensor tile = *source.tile(0, r);
            EXPECT_LE(maxAbsDiff(tile, sliceTile(onDevice, r)), kTileTolerance);
            EXPECT_LE(maxAbsDiff(tile, sliceTile(onCpu, r)), kParityTolerance);
        }
        // A streamed overview through the device: its coarsest level is the mean of the whole head.
        const auto overview = source.overview(0, c.hq - 1);
        const OverviewLevel& finest = overview->levels.front();
        ASSERT_EQ(finest.block, 1);
        float max = 0;
        double sum = 0;
        for (int64_t i = 0; i < c.nq; ++i)
            for (int64_t j = 0; j < c.nk; ++j) {
                const float p = onDevice.at({ c.hq - 1, i, j });
                EXPECT_NEAR(finest.maxAt(i, j), p, kTileTolerance);
                max = std::max(max, p);
                sum += p;
            }
        EXPECT_NEAR(overview->levels.back().maxAt(0, 0), max, kTileTolerance);
        EXPECT_NEAR(overview->levels.back().meanAt(0, 0), sum / double(c.nq * c.nk), kTileTolerance);
    }
}

} // namespace
} // namespace attn::test
