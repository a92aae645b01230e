// SPDX-License-Identifier: MIT
// The attention source on the Vulkan backend: for every mask kind its tiles (rows normalized over all keys by the
// device) equal the probabilities the device materializes for the whole matrix, and the CPU core's within the parity
// bound; overviews streamed through the device equal block max / mean of the materialized matrix.
#include "vulkan_test_support.h"

#include "attention_source/attention_source.h"
#include "support/tile_cases.h"

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
        // A streamed overview through the device: every level is the block max / mean of the device's matrix, and
        // the coarsest one cell, the whole head's.
        const auto overview = source.overview(0, c.hq - 1);
        ASSERT_EQ(overview->levels.front().block, 1);
        ASSERT_GT(overview->levels.size(), 2u) << "no level between the finest and the coarsest";
        EXPECT_EQ(overview->levels.back().rows * overview->levels.back().cols, 1);
        EXPECT_LE(pyramidError(*overview, onDevice, c.hq - 1), kTileTolerance);
    }
}

} // namespace
} // namespace attn::test
