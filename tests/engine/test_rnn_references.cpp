// SPDX-License-Identifier: MIT
// RNN seq2seq models of the documented layout against PyTorch (tools/make_rnn_references.py -> tests/data/rnn-refs/):
// GRU + Bahdanau, LSTM + Luong general, GRU + Luong concat, bidirectional encoders (with a bridge), input feeding and
// two stacked layers. Greedy ids must be equal; every step's logits and attention row within 1e-5 absolute (the
// references are float64 computations of the stored float32 weights; the engine runs in float32).
#include "core/error.h"
#include "model/family_registry.h"
#include "model/rnn_seq2seq.h"
#include "session/sampler.h"
#include "support/shared_data.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace attn {
namespace {

const std::string kDir = std::string(AS_SOURCE_DIR) + "/tests/data/rnn-refs/";
constexpr double kTolerance = 1e-5;

double maxAbsDiff(const std::vector<float>& got, const nlohmann::json& want)
{
    if (got.size() != want.size()) return INFINITY;
    double worst = 0.0;
    for (size_t i = 0; i < got.size(); ++i)
        worst = std::max(worst, std::fabs(static_cast<double>(got[i]) - want[i].get<double>()));
    return worst;
}

class RnnReferences : public ::testing::TestWithParam<std::string> { };

TEST_P(RnnReferences, GreedyLogitsAndAttentionMatchPyTorch)
{
    const std::string dir = kDir + GetParam();
    ASSERT_FALSE(hasSelfAttention(probeModel(dir).config)) << dir;
    const auto model = loadRnnSeq2Seq(dir);
    std::ifstream in(dir + "/reference.json");
    const nlohmann::json ref = nlohmann::json::parse(in);
    ASSERT_FALSE(ref["cases"].empty());
    for (const auto& c : ref["cases"]) {
        const RnnEncoding enc = model->encode(c["source"].get<std::vector<int64_t>>());
        RnnDecoderState state = model->initialState(enc);
        std::vector<int64_t> greedy;
        int64_t token = model->startToken();
        for (size_t s = 0; s < c["greedy"].size(); ++s) {
            const RnnStep step = model->step(enc, state, token);
            EXPECT_LE(maxAbsDiff(step.logits, c["logits"][s]), kTolerance) << c["source"] << " step " << s;
            EXPECT_LE(maxAbsDiff(step.attention, c["attention"][s]), kTolerance) << c["source"] << " step " << s;
            token = argmax(step.logits.data(), static_cast<int64_t>(step.logits.size()));
            greedy.push_back(token);
            if (token == model->eosToken()) break;
        }
        EXPECT_EQ(greedy, c["greedy"].get<std::vector<int64_t>>()) << c["source"];
    }
}

INSTANTIATE_TEST_SUITE_P(TorchSeeded, RnnReferences,
    ::testing::Values("gru_bahdanau", "lstm_luong_general", "gru_luong_concat", "gru_bidirectional_bahdanau_bridge",
        "lstm_bidirectional_dot", "gru_general_input_feeding", "lstm_two_layers_concat_input_feeding",
        "gru_two_layers_bahdanau"));

TEST(RnnReferences, EveryReferenceFolderIsTested)
{
    size_t folders = 0;
    for (const auto& entry : fs::directory_iterator(kDir))
        folders += entry.is_directory();
    EXPECT_EQ(folders, 8u);
}

TEST(RnnReferences, MissingLayerTensorsAreNamed)
{
    const fs::path dir = test::makeTempDir("rnn-layers");
    fs::copy_file(kDir + "gru_bahdanau/model.safetensors", dir / "model.safetensors");
    std::ifstream in(kDir + "gru_bahdanau/config.json");
    nlohmann::json cfg = nlohmann::json::parse(in);
    cfg["num_layers"] = 2; // the file holds layer 0 only
    std::ofstream(dir / "config.json") << cfg.dump();
    try {
        loadRnnSeq2Seq(dir.string());
        FAIL() << "loaded a two-layer config with one layer of weights";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("encoder.rnn.weight_ih_l1"), std::string::npos) << e.what();
    }
    cfg["num_layers"] = 0;
    std::ofstream(dir / "config.json") << cfg.dump();
    EXPECT_THROW(loadRnnSeq2Seq(dir.string()), Error);
}

} // namespace
} // namespace attn
