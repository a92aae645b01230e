// SPDX-License-Identifier: MIT
// The logit lens against the model and against HF: the residual after the last layer reads out as the model's own
// logits, and on the GPT-2 fixture the lens of HF's hidden_states goldens equals an independent float64 readout
// (ln_f then the tied unembedding, weights read from the fixture's safetensors) within the manifest's logits bound.
#include "model_test_util.h"

#include "intervention/logit_lens.h"
#include "io/safetensors.h"
#include "model/model_loader.h"

namespace attn::test {
namespace {

const std::string kGpt2 = "fixtures/hf-tiny/gpt2";
// manifest.json suggested_tolerances.max_abs_diff.logits (10 x the largest fp32-vs-fp64 difference seen, floor 1e-4).
constexpr double kGoldenLogitsTolerance = 1e-4;
// The same readout kernels on the same residual: float32 rounding of the logits only.
constexpr double kSameReadoutTolerance = 1e-5;
// Logits within d of each other give probabilities within p (e^(2d) - 1) <= 2d (p <= 1).
constexpr double kGoldenProbTolerance = 2 * kGoldenLogitsTolerance;

/// GPT-2's readout in float64: LayerNorm(h; ln_f, eps 1e-5) @ wte^T.
Tensor gpt2Readout(const Tensor& hidden, bool normed)
{
    const auto store = SafetensorsStore::open(sharedPath(kGpt2 + "/model.safetensors"));
    const Tensor wte = store->load("transformer.wte.weight");
    const Tensor w = store->load("transformer.ln_f.weight"), b = store->load("transformer.ln_f.bias");
    const int64_t n = hidden.dim(0), d = hidden.dim(1), v = wte.dim(0);
    Tensor logits({ n, v });
    std::vector<double> x(static_cast<size_t>(d));
    for (int64_t i = 0; i < n; ++i) {
        const float* h = hidden.data() + i * d;
        double mean = 0, var = 0;
        for (int64_t j = 0; j < d; ++j)
            mean += h[j] / static_cast<double>(d);
        for (int64_t j = 0; j < d; ++j)
            var += (h[j] - mean) * (h[j] - mean) / static_cast<double>(d);
        for (int64_t j = 0; j < d; ++j)
            x[static_cast<size_t>(j)] = normed ? h[j] : (h[j] - mean) / std::sqrt(var + 1e-5) * w.data()[j] + b.data()[j];
        for (int64_t t = 0; t < v; ++t) {
            double dot = 0;
            for (int64_t j = 0; j < d; ++j)
                dot += x[static_cast<size_t>(j)] * wte.data()[t * d + j];
            logits.data()[i * v + t] = static_cast<float>(dot);
        }
    }
    return logits;
}

struct Gpt2Run {
    std::shared_ptr<const DecoderModel> model;
    std::unique_ptr<ReusableRun> run;
};

Gpt2Run gpt2Run()
{
    Gpt2Run r;
    r.model = std::dynamic_pointer_cast<const DecoderModel>(loadModel(sharedPath(kGpt2)));
    EXPECT_TRUE(r.model);
    const std::vector<int64_t> ids = readNpyInts(sharedPath(kGpt2 + "/golden/item0/input_ids.npy"));
    r.run = std::make_unique<ReusableRun>(*r.model, ids, ForwardOptions {});
    return r;
}

TEST(LogitLens, TheLastLayersResidualReadsOutAsTheModelsLogits)
{
    const Gpt2Run g = gpt2Run();
    const int64_t last = g.model->config().numLayers - 1;
    // The residual the last layer really produced, caught by an edit that changes nothing.
    Tensor residual;
    Intervention capture;
    capture.editsFromLayer = last;
    capture.editResidual = [&](int64_t layer, Tensor& x) {
        if (layer == last) residual = x;
    };
    g.run->rerun(capture);
    ASSERT_FALSE(residual.empty());
    EXPECT_LE(maxAbsDiff(lensLogits(*g.run, residual), g.run->clean().logits), kSameReadoutTolerance);
    EXPECT_GT(maxAbsDiff(lensLogits(*g.run, g.run->clean().hiddenStates[0]), g.run->clean().logits), 1e-2)
        << "the embeddings predict otherwise";

    const LogitLens lens = logitLens(*g.run, 3);
    ASSERT_EQ(lens.top.size(), static_cast<size_t>(last + 2));
    const auto top = topTokens(g.run->clean().logits, 3);
    for (size_t i = 0; i < top.size(); ++i) {
        EXPECT_EQ(lens.top.back()[i][0].id, lens.chosen[i]);
        for (size_t r = 0; r < 3; ++r) {
            EXPECT_EQ(lens.top.back()[i][r].id, top[i][r].id) << i;
            EXPECT_EQ(lens.top.back()[i][r].probability, top[i][r].probability) << i;
        }
        EXPECT_FLOAT_EQ(lens.chosenProbability.data()[(last + 1) * lens.chosenProbability.dim(1)
                            + static_cast<int64_t>(i)],
            static_cast<float>(top[i][0].probability));
    }
    EXPECT_THROW(lensLogits(*g.run, Tensor({ 2, 3 })), Error);
}

TEST(LogitLens, EqualsAFloat64ReadoutOfHfHiddenStates)
{
    const Gpt2Run g = gpt2Run();
    const int64_t layers = g.model->config().numLayers;
    const std::string golden = sharedPath(kGpt2 + "/golden/item0") + "/";
    // The independent readout is right: HF's last hidden state (ln_f applied) times wte^T is HF's logits.
    const Tensor hfLast = readNpy(golden + "hidden_states.0" + std::to_string(layers) + ".npy");
    EXPECT_LE(maxAbsDiff(gpt2Readout(hfLast, true), readNpy(golden + "logits.npy")), kGoldenLogitsTolerance);
    const LogitLens lens = logitLens(*g.run, 300);
    const int64_t n = lens.chosenProbability.dim(1);
    for (int64_t l = 0; l < layers; ++l) {
        const Tensor hf = readNpy(golden + "hidden_states.0" + std::to_string(l) + ".npy");
        const Tensor expected = gpt2Readout(hf, false);
        EXPECT_LE(maxAbsDiff(lensLogits(*g.run, hf), expected), kGoldenLogitsTolerance) << "layer " << l;
        // The lens of the engine's own residual: every probability of the vocabulary (k = vocab) and the chosen one.
        const auto logp = logSoftmaxRows(expected);
        for (int64_t i = 0; i < n; ++i) {
            for (const TopToken& t : lens.top[static_cast<size_t>(l)][static_cast<size_t>(i)])
                EXPECT_NEAR(t.probability, std::exp(logp[static_cast<size_t>(i)][static_cast<size_t>(t.id)]),
                    kGoldenProbTolerance)
                    << "layer " << l << " position " << i << " token " << t.id;
            EXPECT_NEAR(lens.chosenProbability.data()[l * n + i],
                std::exp(logp[static_cast<size_t>(i)][static_cast<size_t>(lens.chosen[static_cast<size_t>(i)])]),
                kGoldenProbTolerance);
        }
    }
}

// `attnscope-cli lens` writes the same lens: chosen_probability.npy and the top tokens of lens.json.
TEST(LogitLens, CliWritesTheLens)
{
    const Gpt2Run g = gpt2Run();
    const LogitLens lens = logitLens(*g.run, 3);
    std::string ids;
    for (const int64_t id : g.run->clean().tokens)
        ids += (ids.empty() ? "" : ",") + std::to_string(id);
    const std::string dir = makeTempDir("lens");
    std::string out;
    ASSERT_EQ(runCommand(cliPath() + " lens " + sharedPath(kGpt2) + " --tokens " + ids
                      + " --top-k 3 --backend cpu --out " + dir,
                  &out),
        0)
        << out;
    // Another process runs the same kernels on the same input: only BLAS threading could reorder a sum.
    EXPECT_LE(maxAbsDiff(readNpy(dir + "/chosen_probability.npy"), lens.chosenProbability), kSameReadoutTolerance);
    std::ifstream in(dir + "/lens.json");
    const nlohmann::json report = nlohmann::json::parse(in);
    ASSERT_EQ(report["layers"].size(), lens.top.size());
    for (size_t l = 0; l < lens.top.size(); ++l)
        EXPECT_EQ(report["layers"][l].back()[0]["id"], lens.top[l].back()[0].id) << "layer " << l;
    EXPECT_EQ(report["chosen"].back()["id"], lens.chosen.back());
    EXPECT_EQ(runCommand(cliPath() + " lens " + sharedPath(kGpt2) + " --tokens 1,2 --top-k 0 --out " + dir, &out), 2)
        << out;
}

} // namespace
} // namespace attn::test
