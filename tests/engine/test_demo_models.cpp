// SPDX-License-Identifier: MIT
// The models the app bundles (resources/models/, trained by tools/train/) load and reproduce the outputs recorded by
// the independent PyTorch implementation they were trained with (reference.json beside each model).
#include "core/error.h"
#include "model/model_loader.h"
#include "model/model_source.h"
#include "session/sampler.h"
#include "session/session.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/tokenizer_loader.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

namespace attn {
namespace {

const std::string kDecoderDemo = std::string(AS_SOURCE_DIR) + "/resources/models/demo-stories-llama";

TEST(DemoDecoder, ReproducesPyTorchGreedyContinuationsAndLogits)
{
    const ModelSource source = probeModel(kDecoderDemo);
    const auto model = loadModel(source);
    const auto tokenizer = loadTokenizer(source);
    std::ifstream in(kDecoderDemo + "/reference.json");
    ASSERT_TRUE(in) << "missing " << kDecoderDemo << "/reference.json";
    const auto ref = nlohmann::json::parse(in);
    ASSERT_FALSE(ref["cases"].empty());
    for (const auto& c : ref["cases"]) {
        const auto promptIds = c["prompt_ids"].get<std::vector<int64_t>>();
        EXPECT_EQ(tokenIds(tokenizer->encode(c["prompt"].get<std::string>(), false)), promptIds) << c["prompt"];

        Session session(model);
        const auto prefill = session.prefill(promptIds);
        const auto lastLogits = c["last_logits"].get<std::vector<float>>();
        const int64_t vocab = prefill->logits.dim(1);
        ASSERT_EQ(static_cast<int64_t>(lastLogits.size()), vocab);
        const float* last = prefill->logits.data() + (prefill->logits.dim(0) - 1) * vocab;
        float worst = 0.0f;
        for (int64_t v = 0; v < vocab; ++v)
            worst = std::max(worst, std::abs(last[v] - lastLogits[static_cast<size_t>(v)]));
        EXPECT_LT(worst, 1e-4f) << "last-position logits differ from PyTorch for " << c["prompt"];

        std::vector<int64_t> generated;
        int64_t next = argmax(last, vocab);
        for (size_t i = 0; i < c["greedy_ids"].size(); ++i) {
            generated.push_back(next);
            const auto r = session.step(next);
            next = argmax(r->logits.data(), vocab);
        }
        EXPECT_EQ(generated, c["greedy_ids"].get<std::vector<int64_t>>()) << c["prompt"];
    }
}

} // namespace
} // namespace attn
