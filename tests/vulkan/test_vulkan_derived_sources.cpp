// SPDX-License-Identifier: MIT
// The Decode timeline's and the Alignment tab's attention sources on the Vulkan backend, on real fixtures: every row
// of every layer and head, and tiles that cut the rows and keys, equal the CPU core's from the same stored queries and
// keys within the fp32 parity bound, and the device computed them (not a CPU fallback).
#include "vulkan_test_support.h"

#include "align/stepwise_translation.h"
#include "attention_source/attention_source.h"
#include "session/cross_attention_source.h"
#include "session/decode_timeline.h"
#include "session/translator.h"
#include "support/shared_data.h"

#include <algorithm>

namespace attn::test {
namespace {

/// The process-wide device backend, as a source holds its backend (it outlives every test: nothing to keep alive).
std::shared_ptr<Backend> held(Backend& backend)
{
    return { std::shared_ptr<Backend>(), &backend };
}

/// Every head of `onDevice` against `onCpu`: whole rows, and a tile of the later half of the rows over the first
/// half of the keys (crossing the causal diagonal and a sliding window's edge where there is one).
void expectDeviceEqualsCpu(Backend& device, const AttentionSource& onDevice, const AttentionSource& onCpu)
{
    ASSERT_EQ(onDevice.numLayers(), onCpu.numLayers());
    ASSERT_EQ(onDevice.numHeads(), onCpu.numHeads());
    ASSERT_EQ(onDevice.numQueries(), onCpu.numQueries());
    ASSERT_EQ(onDevice.numKeys(), onCpu.numKeys());
    const int64_t nq = onCpu.numQueries(), nk = onCpu.numKeys();
    const uint64_t submits = device.traffic().submits;
    double worst = 0.0;
    for (int64_t l = 0; l < onCpu.numLayers(); ++l)
        for (int64_t h = 0; h < onCpu.numHeads(); ++h) {
            SCOPED_TRACE("layer " + std::to_string(l) + " head " + std::to_string(h));
            worst = std::max(worst, maxAbsDiff(*onDevice.rows(l, h, 0, nq), *onCpu.rows(l, h, 0, nq)));
            const TileRange cut { h, nq / 2, nq, 0, nk / 2 + 1 };
            worst = std::max(worst, maxAbsDiff(*onDevice.tile(l, cut), *onCpu.tile(l, cut)));
        }
    EXPECT_LE(worst, kParityTolerance);
    EXPECT_GE(device.traffic().submits, submits + static_cast<uint64_t>(2 * onCpu.numLayers() * onCpu.numHeads()))
        << "tiles computed without the device";
}

class VulkanDerivedSources : public VulkanTest { };

// Decoded on the device, as the Decode tab does with View > Compute backend > Vulkan: causal (stories260K), GQA
// (llama) and a sliding window of 6 over 32 positions (mistral).
TEST_F(VulkanDerivedSources, DecodeTimelineOnTheDeviceEqualsTheCpu)
{
    for (const char* path :
        { "models/stories260K/stories260K.bin", "fixtures/hf-tiny/llama", "fixtures/hf-tiny/mistral" }) {
        SCOPED_TRACE(path);
        ForwardOptions options;
        options.backend = &vk();
        const auto timeline = openDecodeTimeline(sharedPath(path), nullptr, options);
        timeline->prompt({ 1, 42, 7 });
        for (int i = 0; i < 29 && timeline->step(); ++i) { }
        ASSERT_EQ(timeline->length(), 32);
        const auto onCpu = timeline->derivedAttention(32);
        const auto onDevice = timeline->derivedAttention(32, held(vk()));
        ASSERT_NE(onCpu, nullptr);
        ASSERT_NE(onDevice, nullptr);
        expectDeviceEqualsCpu(vk(), *onDevice, *onCpu);
        // A source of fewer positions than decoded: the copy of those only.
        const auto earlier = timeline->derivedAttention(17, held(vk()));
        EXPECT_EQ(earlier->numKeys(), 17);
        expectDeviceEqualsCpu(vk(), *earlier, *timeline->derivedAttention(17));
    }
}

// The Alignment tab's step-by-step translation keeps each step's cross queries; its source over them and the
// encoding's keys (MarianMT fixture, no mask) on the device.
TEST_F(VulkanDerivedSources, CrossAttentionOfATranslationOnTheDeviceEqualsTheCpu)
{
    const Translator translator(sharedPath("fixtures/hf-tiny/marian"));
    const AlignedSide source = translator.source("120 33 7 91 15 0");
    StepwiseTranslation decoding(
        translator.decoder(source.ids), translator.startToken(), translator.eosToken(), translator.maxNewTokens());
    for (int i = 0; i < 12 && !decoding.finished(); ++i)
        decoding.step();
    ASSERT_GE(decoding.crossQueries().size(), 2u);
    ASSERT_NE(decoding.crossKeys(), nullptr);
    const auto onCpu = crossAttentionSource(*decoding.crossKeys(), decoding.crossQueries());
    const auto onDevice = crossAttentionSource(*decoding.crossKeys(), decoding.crossQueries(), held(vk()));
    ASSERT_EQ(onDevice->numKeys(), static_cast<int64_t>(source.ids.size()));
    expectDeviceEqualsCpu(vk(), *onDevice, *onCpu);
}

} // namespace
} // namespace attn::test
