// SPDX-License-Identifier: MIT
// The Mechanisms scoring functions on RNN seq2seq models (the bundled GRU demo, the PyTorch tutorial toy and the
// PyTorch-seeded references in tests/data/rnn-refs): the exact attention is the model's own learned score, equal to
// what PyTorch computed; the matching scoring function uses the trained parameters as they are (not fitted); every
// variant agrees with an independent NumPy recomputation (tests/mechanisms/reference.py) from q, k, v and
// learned.npy / params.npy.
//
// Tolerances: against NumPy as test_mechanisms_reference.cpp (1e-6 on probabilities, both sides in float64 from the
// same float32 values; fitted scores 1e-4 of the largest). Against PyTorch: the query states come from the engine's
// float32 recurrence, so the references' own bounds apply (1e-5 for rnn-refs, float64 references of float32
// weights; 2e-6 for the tutorial's attention, rounded to 6 decimals, as test_rnn_seq2seq.cpp).
#include "core/npy.h"
#include "mechanisms_test_util.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace attn {
namespace {

constexpr double kProbTol = 1e-6;
constexpr double kFitTol = 1e-4;

struct RnnSource {
    const char* name;
    std::string args; ///< model and input, before --variant
    std::string score; ///< metrics.json's input.learned_score
};

std::string refsDir(const std::string& name)
{
    return std::string(AS_SOURCE_DIR) + "/tests/data/rnn-refs/" + name;
}

/// The first case of an rnn-refs folder: its source ids and PyTorch's attention rows.
nlohmann::json firstReferenceCase(const std::string& name)
{
    return test::readJsonFile(refsDir(name) + "/reference.json")["cases"][0];
}

std::string idList(const nlohmann::json& ids)
{
    std::string out;
    for (const auto& id : ids)
        out += (out.empty() ? "" : ",") + std::to_string(id.get<int64_t>());
    return out;
}

std::vector<RnnSource> rnnSources()
{
    std::vector<RnnSource> all = {
        { "gru_demo",
            std::string(AS_SOURCE_DIR)
                + "/resources/models/demo-translate-gru --prompt 'the red car sees a small dog .'",
            "bahdanau" },
        { "tutorial", test::sharedPath("models/seq2seq-attn-de-en-toy") + " --prompt 'man wei sehr wenig uber sie .'",
            "location" },
    };
    for (const auto& [name, score] : std::vector<std::pair<const char*, const char*>> {
             { "gru_luong_concat", "concat" }, { "lstm_luong_general", "general" }, { "lstm_bidirectional_dot", "dot" },
             { "gru_general_input_feeding", "general" }, { "gru_two_layers_bahdanau", "bahdanau" } })
        all.push_back({ name, refsDir(name) + " --tokens " + idList(firstReferenceCase(name)["source"]), score });
    for (RnnSource& s : all)
        s.args += " --layer 0 --head 0";
    return all;
}

/// Largest |exact.npy - rows| over a [steps, keys] JSON matrix; infinity on a shape mismatch.
double exactVersus(const std::string& dir, const nlohmann::json& rows)
{
    const Tensor exact = readNpy(dir + "/exact.npy");
    if (exact.dim(0) != static_cast<int64_t>(rows.size())) return INFINITY;
    double worst = 0.0;
    for (int64_t i = 0; i < exact.dim(0); ++i) {
        if (exact.dim(1) != static_cast<int64_t>(rows[static_cast<size_t>(i)].size())) return INFINITY;
        for (int64_t j = 0; j < exact.dim(1); ++j)
            worst = std::max(worst,
                std::abs(exact.at({ i, j }) - rows[static_cast<size_t>(i)][static_cast<size_t>(j)].get<double>()));
    }
    return worst;
}

class MechanismsLearned : public ::testing::TestWithParam<std::tuple<int, std::string>> { };

TEST_P(MechanismsLearned, MatchesNumPy)
{
    const auto& [index, variant] = GetParam();
    const RnnSource source = rnnSources()[static_cast<size_t>(index)];
    const std::string dir = test::runMechanismsCli(source.args, variant);
    EXPECT_EQ(test::readJsonFile(dir + "/metrics.json")["input"]["learned_score"], source.score);
    const nlohmann::json r = test::numpyReference(dir);
    SCOPED_TRACE(r.dump());
    ASSERT_TRUE(r.contains("probs_err"));
    EXPECT_LE(r["exact_err"].get<double>(), kProbTol);
    EXPECT_LE(r["probs_err"].get<double>(), kProbTol);
    EXPECT_LE(r["out_err"].get<double>(), kProbTol * r["out_scale"].get<double>());
    EXPECT_LE(r["out_rel_err_err"].get<double>(), 1e-6);
    EXPECT_LE(r["kl_err"].get<double>(), 1e-6);
    if (r.contains("fit_rel_err")) {
        EXPECT_LE(r["fit_rel_err"].get<double>(), kFitTol);
    }
    if (r.contains("learned_err")) {
        EXPECT_EQ(r["learned_err"].get<double>(), 0.0);
    }
}

std::vector<std::string> scoringVariants()
{
    return { "exact", "general", "concat", "additive" };
}

std::string testName(const ::testing::TestParamInfo<std::tuple<int, std::string>>& info)
{
    return std::string(rnnSources()[static_cast<size_t>(std::get<0>(info.param))].name) + "_" + std::get<1>(info.param);
}

INSTANTIATE_TEST_SUITE_P(Rnn, MechanismsLearned,
    ::testing::Combine(::testing::Range(0, 7), ::testing::ValuesIn(scoringVariants())), testName);
// Unscaled dot needs one width for queries and keys: the GRU demo (128 and 128) and the dot model.
INSTANTIATE_TEST_SUITE_P(RnnUnscaled, MechanismsLearned,
    ::testing::Combine(::testing::Values(0, 4), ::testing::Values(std::string("unscaled"))), testName);

TEST(MechanismsLearned, ExactIsPyTorchsAttention)
{
    const std::vector<RnnSource> sources = rnnSources();
    for (size_t i = 2; i < sources.size(); ++i) {
        const std::string dir = test::runMechanismsCli(sources[i].args, "exact");
        EXPECT_LE(exactVersus(dir, firstReferenceCase(sources[i].name)["attention"]), 1e-5) << sources[i].name;
        EXPECT_EQ(test::readJsonFile(dir + "/metrics.json")["input"]["generated"],
            firstReferenceCase(sources[i].name)["greedy"])
            << sources[i].name;
    }
    const nlohmann::json toy = test::readJsonFile(
        test::sharedPath("models/seq2seq-attn-de-en-toy/reference_translations_with_attention.json"))[0];
    ASSERT_EQ(toy["src"], "man wei sehr wenig uber sie .");
    const std::string dir = test::runMechanismsCli(sources[1].args, "exact");
    EXPECT_LE(exactVersus(dir, toy["attention"]), 2e-6);
    EXPECT_EQ(test::readJsonFile(dir + "/metrics.json")["input"]["translation"], toy["hyp"]);
}

TEST(MechanismsLearned, GruDemoGreedyIsItsReferenceTranslation)
{
    const nlohmann::json ref = test::readJsonFile(
        std::string(AS_SOURCE_DIR) + "/resources/models/demo-translate-gru/reference.json")["cases"][0];
    ASSERT_EQ(ref["source"], "the red car sees a small dog .");
    const std::string dir = test::runMechanismsCli(rnnSources()[0].args, "exact");
    const nlohmann::json m = test::readJsonFile(dir + "/metrics.json");
    EXPECT_EQ(m["input"]["tokens"], ref["source_ids"]);
    EXPECT_EQ(m["input"]["generated"], ref["greedy_ids"]);
    EXPECT_EQ(readNpy(dir + "/exact.npy").shape(), (Shape { 9, 9 })); // 9 target steps over 9 source tokens
}

// The learned function is the model's own: its probabilities are the exact ones (the same function of the same
// float64 values), and the note says the parameters were not fitted; another function is fitted.
TEST(MechanismsLearned, MatchingFunctionUsesTheTrainedParameters)
{
    const std::vector<RnnSource> sources = rnnSources();
    for (const auto& [index, variant] :
        std::vector<std::pair<size_t, const char*>> { { 0, "additive" }, { 2, "concat" }, { 3, "general" } }) {
        const nlohmann::json m
            = test::readJsonFile(test::runMechanismsCli(sources[index].args, variant) + "/metrics.json");
        EXPECT_LE(m["out_rel_err"].get<double>(), 1e-12) << variant;
        EXPECT_LE(std::abs(m["kl_mean"].get<double>()), 1e-12) << variant;
        EXPECT_NE(m["notes"]["params"].get<std::string>().find("learned"), std::string::npos) << variant;
    }
    // A function the model was not trained with is fitted (here W [dq, dk] = [128, 128] for the Bahdanau demo).
    const std::string general = test::runMechanismsCli(sources[0].args, "general");
    EXPECT_NE(test::readJsonFile(general + "/metrics.json")["notes"]["params"].get<std::string>().find("fitted"),
        std::string::npos);
    EXPECT_EQ(readNpy(general + "/params.npy").shape(), (Shape { 128, 128 }));
}

TEST(MechanismsLearned, NonScoringVariantsAndOtherHeadsFailClearly)
{
    const std::vector<RnnSource> sources = rnnSources();
    test::expectMechanismsFails(sources[0].args + " --variant window:2", "runs the scoring functions only");
    test::expectMechanismsFails(sources[1].args + " --variant unscaled", "one width");
    const std::string toy = test::sharedPath("models/seq2seq-attn-de-en-toy");
    test::expectMechanismsFails(
        toy + " --prompt 'man wei' --layer 1 --head 0 --variant exact", "give --layer 0 --head 0");
}

} // namespace
} // namespace attn
