// SPDX-License-Identifier: MIT
// GGUF models with packed (quantized) weights on Vulkan: the rows go up widened to float32, and the forward matches
// the float64 goldens as closely as the CPU's.
#include "vulkan_test_support.h"

#include "core/npy.h"
#include "model/kv_cache.h"
#include "model/model_loader.h"
#include "support/shared_data.h"

#include <algorithm>
#include <cmath>

namespace attn::test {
namespace {

class VulkanGguf : public VulkanTest { };

TEST_F(VulkanGguf, QuantizedModelsMatchTheirGoldens)
{
    for (const std::string stem :
        { "kq256/kq256-Q4_K", "hf-tiny-llama/hf-tiny-llama-Q8_0", "stories260K/stories260K-Q4_0" }) {
        SCOPED_TRACE(stem);
        const std::string model = stem.substr(0, stem.find('/'));
        const std::string name = stem.substr(stem.find('/') + 1);
        const auto m
            = std::dynamic_pointer_cast<const DecoderModel>(loadModel(sharedPath("fixtures/gguf/" + stem + ".gguf")));
        const std::string golden = sharedPath("fixtures/gguf/" + model + "/golden/" + name);
        KvCache cache = m->newCache();
        ForwardOptions options;
        options.backend = &vk();
        const StepResult r = m->forward(cache, readNpyInts(golden + "/input_ids.npy"), options);
        EXPECT_LE(maxAbsDiff(r.logits, readNpy(golden + "/logits.npy")), 1e-4); // README: float32 vs float64
        EXPECT_LE(maxAbsDiff(r.attention[0], readNpy(golden + "/attentions.L00.npy")), 1e-5);
        EXPECT_GT(vk().traffic().uploadedBytes, 0u);
    }
}

} // namespace
} // namespace attn::test
