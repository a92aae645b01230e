// SPDX-License-Identifier: MIT
// `attnscope-cli attention` on long inputs: --layers/--heads/--rows/--cols write only the part asked for, equal to
// that part of the whole export; the byte count announced before writing is what lands on disk; --prompt-file reads
// the prompt; an input past the model's positions is cut to its last tokens (learned positions) or runs past the
// trained length with a warning (rotary positions), never only refused.
#include "core/npy.h"
#include "model_test_util.h"
#include "support/long_context_model.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace attn {
namespace {

nlohmann::json manifestOf(const std::string& dir)
{
    std::ifstream in(dir + "/manifest.json");
    return nlohmann::json::parse(in);
}

int cli(const std::string& args, std::string* output)
{
    return test::runCommand(test::cliPath() + " " + args + " 2>&1", output);
}

TEST(AttentionCliLong, SelectionWritesOnlyWhatWasAskedAndEqualsTheWholeExport)
{
    const auto model = test::makeLongContextModel("gpt2", 1024, 300);
    const std::string whole = test::makeTempDir("whole"), part = test::makeTempDir("part");
    std::string out;
    ASSERT_EQ(cli("attention " + model.dir + " --prompt-file " + model.text + " --backend cpu --out " + whole, &out), 0)
        << out;
    ASSERT_EQ(cli("attention " + model.dir + " --prompt-file " + model.text
                      + " --backend cpu --layers 1 --heads 1 --rows 250:300 --cols 20:300 --out " + part,
                  &out),
        0)
        << out;
    // Only layer 1 was written, [1 head, 50 rows, 280 columns].
    EXPECT_FALSE(std::filesystem::exists(part + "/attn.L0.npy"));
    const Tensor selected = readNpy(part + "/attn.L1.npy");
    ASSERT_EQ(selected.shape(), (Shape { 1, 50, 280 }));
    const Tensor all = readNpy(whole + "/attn.L1.npy");
    ASSERT_EQ(all.shape(), (Shape { 2, 300, 300 }));
    double diff = 0;
    for (int64_t i = 0; i < 50; ++i)
        for (int64_t j = 0; j < 280; ++j)
            diff = std::max(diff, std::fabs(double(selected.at({ 0, i, j })) - all.at({ 1, 250 + i, 20 + j })));
    // Both are derived tiles of the same rows through GEMMs of other shapes: float32 ulps (see test_attention_source).
    EXPECT_LE(diff, 1e-6);
    const std::uintmax_t bytes = std::filesystem::file_size(part + "/attn.L1.npy");
    EXPECT_NE(out.find("writing " + std::to_string(bytes) + " bytes"), std::string::npos) << out;
    const nlohmann::json m = manifestOf(part);
    EXPECT_EQ(m["tokens"].size(), 300u);
    EXPECT_EQ(m["selection"]["rows"], nlohmann::json({ 250, 300 }));
    EXPECT_EQ(m["files"].size(), 2u); // layer 1 and the logits of the selected rows
    EXPECT_EQ(readNpy(part + "/logits.npy").shape(), (Shape { 50, 50257 }));
    // A range outside the input is a usage mistake, named.
    EXPECT_NE(cli("attention " + model.dir + " --prompt-file " + model.text + " --rows 0:301 --out " + part, &out), 0);
    EXPECT_NE(out.find("rows 0:301"), std::string::npos) << out;
    EXPECT_NE(cli("attention " + model.dir + " --prompt-file /nonexistent/text --out " + part, &out), 0);
    EXPECT_NE(out.find("/nonexistent/text"), std::string::npos) << out;
}

TEST(AttentionCliLong, LearnedPositionsKeepTheLastTokensThatFit)
{
    const auto model = test::makeLongContextModel("gpt2", 256, 300);
    const std::string dir = test::makeTempDir("keep-last");
    std::string out;
    ASSERT_EQ(cli("attention " + model.dir + " --prompt-file " + model.text + " --layers 0 --out " + dir, &out), 0)
        << out;
    EXPECT_NE(out.find("keeping the last 256 (dropped the first 44)"), std::string::npos) << out;
    EXPECT_EQ(manifestOf(dir)["tokens"].size(), 256u);
    EXPECT_EQ(readNpy(dir + "/attn.L0.npy").shape(), (Shape { 2, 256, 256 }));
    // The user may ask for fewer.
    ASSERT_EQ(
        cli("attention " + model.dir + " --prompt-file " + model.text + " --keep-last 100 --layers 0 --out " + dir,
            &out),
        0)
        << out;
    EXPECT_EQ(manifestOf(dir)["tokens"].size(), 100u);
}

TEST(AttentionCliLong, RotaryPositionsRunPastTheTrainedLengthWithAWarning)
{
    const auto model = test::makeLongContextModel("llama", 256, 300);
    const std::string dir = test::makeTempDir("run-past");
    std::string out;
    ASSERT_EQ(cli("attention " + model.dir + " --prompt-file " + model.text + " --layers 1 --heads 0 --rows 299:300 "
                      + "--out " + dir,
                  &out),
        0)
        << out;
    EXPECT_NE(out.find("past the 256 positions the model was trained on"), std::string::npos) << out;
    EXPECT_EQ(manifestOf(dir)["tokens"].size(), 300u);
    const Tensor last = readNpy(dir + "/attn.L1.npy");
    ASSERT_EQ(last.shape(), (Shape { 1, 1, 300 }));
    double sum = 0;
    for (int64_t j = 0; j < 300; ++j)
        sum += last.at({ 0, 0, j });
    EXPECT_NEAR(sum, 1.0, 1e-5); // the last row sees all 300 keys
}

} // namespace
} // namespace attn
