// SPDX-License-Identifier: MIT
// RoPE scaling as config.json states it: llama3's scaled frequencies against the values the llama3-rope manifest
// records (transformers' _compute_llama3_parameters), longrope's factor choice and cos/sin scale (Phi-3 configs, which
// have no tiny golden) against the formula in double, and dynamic NTK's base against the manifest note's formula.
#include "attention/rope_scaling.h"
#include "model/model_config.h"
#include "model_test_util.h"

#include <gtest/gtest.h>

#include <cmath>

namespace attn {
namespace {

TEST(RopeScaling, Llama3FrequenciesEqualTransformers)
{
    const test::Fixture fx("llama3-rope");
    const ModelConfig c = parseHfConfig(fx.dir + "/config.json");
    ASSERT_EQ(c.ropeScaling.type, RopeScaling::Type::Llama3);
    const RotaryEmbedding rope = rotaryEmbedding(c, c.headDim, 12);
    const auto expected = fx.manifest["inputs"]["rope_inv_freq"]["values"].get<std::vector<double>>();
    ASSERT_EQ(rope.invFreq.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i)
        EXPECT_NEAR(rope.invFreq[i], expected[i], 1e-7 * expected[i]) << i; // float32 rounding of the same steps
    EXPECT_EQ(rope.cosSinScale, 1.0f);
}

TEST(RopeScaling, DynamicNtkChangesTheBaseOnlyPastTheTrainedLength)
{
    const test::Fixture fx("llama-rope-dynamic");
    const ModelConfig c = parseHfConfig(fx.dir + "/config.json");
    const RotaryEmbedding within = rotaryEmbedding(c, 8, 8), past = rotaryEmbedding(c, 8, 12);
    EXPECT_EQ(within.invFreq, plainRotary(RopeStyle::RotateHalf, 10000.0, 8).invFreq);
    const double base = 10000.0 * std::pow(2.0 * 12 / 8 - 1.0, 8.0 / 6.0); // the manifest's formula
    for (size_t i = 0; i < past.invFreq.size(); ++i)
        EXPECT_NEAR(past.invFreq[i], std::pow(base, -2.0 * double(i) / 8.0), 1e-6 * past.invFreq[i]) << i;
}

TEST(RopeScaling, LongRopePicksFactorsByLengthAndScalesCosSin)
{
    const ModelConfig c = parseHfConfigText(R"({"model_type": "phi3", "num_hidden_layers": 1,
        "num_attention_heads": 2, "hidden_size": 16, "intermediate_size": 32, "vocab_size": 10,
        "max_position_embeddings": 4096, "original_max_position_embeddings": 512, "rope_theta": 10000.0,
        "rope_scaling": {"type": "longrope", "short_factor": [1.0, 1.5, 2.0, 3.0], "long_factor": [2.0, 4.0, 8.0, 16.0]}})",
        "phi3.json");
    ASSERT_EQ(c.ropeScaling.type, RopeScaling::Type::LongRope);
    const double scale = std::sqrt(1.0 + std::log(4096.0 / 512.0) / std::log(512.0));
    for (const auto& [length, factors] : { std::pair { int64_t(512), std::vector<double> { 1.0, 1.5, 2.0, 3.0 } },
             std::pair { int64_t(513), std::vector<double> { 2.0, 4.0, 8.0, 16.0 } } }) {
        const RotaryEmbedding rope = rotaryEmbedding(c, 8, length);
        EXPECT_NEAR(rope.cosSinScale, scale, 1e-6) << length;
        for (size_t i = 0; i < 4; ++i)
            EXPECT_NEAR(
                rope.invFreq[i], 1.0 / (factors[i] * std::pow(10000.0, 2.0 * double(i) / 8.0)), 1e-6 * rope.invFreq[i])
                << length << " pair " << i;
    }
    // A factor list that does not fit the rotary dims is an error naming the config.
    try {
        rotaryEmbedding(c, 16, 10);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("phi3.json"), std::string::npos) << e.what();
    }
}

TEST(RopeScaling, YarnReadsTransformersKeysAndRefusesBadValuesNamingTheFile)
{
    // The frequencies themselves are checked against a float64 port of _compute_yarn_parameters
    // (tests/reference/yarn_reference.py, ctest yarn_reference); here the keys, their defaults and the refusals.
    const auto config = [](const std::string& scaling) {
        return R"({"model_type": "llama", "num_hidden_layers": 1, "num_attention_heads": 2, "hidden_size": 16,
            "intermediate_size": 32, "vocab_size": 10, "max_position_embeddings": 256, "rope_scaling": )"
            + scaling + "}";
    };
    const ModelConfig c = parseHfConfigText(
        config(R"({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64})"), "yarn.json");
    ASSERT_EQ(c.ropeScaling.type, RopeScaling::Type::Yarn);
    EXPECT_EQ(c.ropeScaling.betaFast, 32.0);
    EXPECT_EQ(c.ropeScaling.betaSlow, 1.0);
    EXPECT_TRUE(c.ropeScaling.truncate);
    // The default attention factor is 0.1 ln(factor) + 1 on cos and sin.
    EXPECT_FLOAT_EQ(rotaryEmbedding(c, 8, 4).cosSinScale, static_cast<float>(0.1 * std::log(4.0) + 1.0));
    const ModelConfig implicit = parseHfConfigText(
        config(R"({"type": "yarn", "original_max_position_embeddings": 64, "truncate": false})"), "yarn.json");
    EXPECT_EQ(implicit.ropeScaling.factor, 4.0); // max_position_embeddings / original, as transformers 4.57+
    EXPECT_FALSE(implicit.ropeScaling.truncate);
    for (const char* bad : { R"({"type": "yarn", "factor": -2.0})", R"({"type": "yarn", "factor": 2.0,
            "attention_factor": -1.0})",
             R"({"type": "yarn", "factor": 2.0, "beta_fast": -32.0})" }) {
        try {
            parseHfConfigText(config(bad), "bad-yarn.json");
            ADD_FAILURE() << "no error for " << bad;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("bad-yarn.json"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("rope_scaling yarn needs"), std::string::npos) << e.what();
        }
    }
}

TEST(RopeScaling, UnknownTypeIsRefusedNamingTheFile)
{
    try {
        parseHfConfigText(R"({"model_type": "llama", "num_hidden_layers": 1, "num_attention_heads": 2,
            "hidden_size": 16, "intermediate_size": 32, "vocab_size": 10, "rope_scaling": {"type": "mrope",
            "mrope_section": [2, 3, 3]}})",
            "llama.json");
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("llama.json"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("\"mrope\" is not supported"), std::string::npos) << e.what();
    }
}

} // namespace
} // namespace attn
