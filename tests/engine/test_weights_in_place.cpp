// SPDX-License-Identifier: MIT
// Float32 safetensors weight matrices are used where they lie in the file's mapping (issue 20): loading a model and
// running it costs about the file's size in resident memory, not the file's pages plus a float32 copy of each.
#include "model/kv_cache.h"
#include "model/model_loader.h"
#include "support/long_context_model.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

namespace attn {
namespace {

/// A field of /proc/self/status in bytes ("VmHWM", "VmRSS"); -1 when absent.
int64_t statusBytes(const std::string& field)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(field + ":", 0) == 0) return std::stoll(line.substr(field.size() + 1)) * 1024;
    return -1;
}

TEST(WeightsInPlace, F32LlamaPeakResidentIsAboutTheFileSize)
{
    // Random weights in the genuine GPT-2 vocabulary: the embedding and LM head (50257 x 256 each) are 103 MB of
    // the ~110 MB file, so a float32 copy of the weights would add as much again.
    const test::LongContextModel m = test::makeLongContextModel("llama", 64, 8, "--layers 2 --heads 4 --width 256");
    const auto fileBytes = static_cast<int64_t>(std::filesystem::file_size(m.dir + "/model.safetensors"));
    ASSERT_GT(fileBytes, 100'000'000);

    // Writing 5 to clear_refs resets the peak (VmHWM) to the current resident size (Linux >= 4.0).
    std::ofstream("/proc/self/clear_refs") << "5";
    const int64_t before = statusBytes("VmRSS");
    ASSERT_GT(before, 0);
    ASSERT_LE(statusBytes("VmHWM"), before + (1 << 20)) << "the peak was not reset";
    {
        const auto model = std::dynamic_pointer_cast<const DecoderModel>(loadModel(m.dir));
        ASSERT_TRUE(model);
        KvCache cache = model->newCache();
        const StepResult step = model->forward(cache, { 1, 2, 3, 4, 5, 6, 7, 8 }, {});
        // The LM head was read whole: every logit is a product with one of its rows.
        ASSERT_EQ(step.logits.numel(), 8 * 50257);
    }
    const int64_t peak = statusBytes("VmHWM") - before;
    // The mapping's pages count once (at most the file); activations of 8 tokens and the tokenizer are a few MB.
    // A copy of the weights beside the mapping would reach about twice the file.
    std::cout << "peak resident growth " << peak / 1e6 << " MB for a " << fileBytes / 1e6 << " MB file\n";
    EXPECT_LE(peak, fileBytes + fileBytes / 5)
        << "peak resident growth " << peak << " bytes for a " << fileBytes << "-byte file";
}

} // namespace
} // namespace attn
