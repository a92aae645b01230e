// SPDX-License-Identifier: MIT
// attnscope-cli classify / rollout / attention on image models: the MNIST sample PNGs classify as their labels,
// the rollout map equals the engine's rollout of the golden attention, and --image without Qt is refused clearly.
#include "analysis/rollout.h"
#include "model_test_util.h"

#include <gtest/gtest.h>

#include <sstream>

namespace attn {
namespace {

using test::Fixture;

std::string run(const std::string& args, int expectRc = 0)
{
    return test::runCli(args, expectRc);
}

TEST(VitCli, ClassifyPixelValuesPrintsLabelsBestFirst)
{
    const Fixture fx("vit");
    const std::string out
        = run("classify " + fx.dir + " --pixel-values " + fx.golden("pixel_values.npy") + " --top-k 3");
    const Tensor logits = fx.tensor("logits.npy");
    const auto best = std::max_element(logits.storage().begin(), logits.storage().end()) - logits.storage().begin();
    std::istringstream lines(out);
    std::string label;
    double p = 0, previous = 1.0, sum = 0;
    int n = 0;
    while (lines >> label >> p) {
        if (n == 0) {
            EXPECT_EQ(label, "LABEL_" + std::to_string(best));
        }
        EXPECT_LE(p, previous);
        previous = p;
        sum += p;
        ++n;
    }
    EXPECT_EQ(n, 3);
    EXPECT_LE(sum, 1.0 + 1e-6);
    run("classify " + fx.dir + " --pixel-values " + fx.golden("pixel_values.npy") + " --top-k 0", 2);
}

TEST(VitCli, RolloutMapIsTheClassRowOverPatches)
{
    const Fixture fx("vit");
    const std::string file = test::makeTempDir("rollout") + "/map.npy";
    run("rollout " + fx.dir + " --pixel-values " + fx.golden("pixel_values.npy") + " --fusion max --discard 0.2 --out "
        + file);
    const Tensor map = readNpy(file);
    ASSERT_EQ(map.shape(), (Shape { 4, 4 }));
    RolloutOptions o;
    o.fusion = HeadFusion::Max;
    o.discardRatio = 0.2;
    const Tensor joint = attentionRollout({ fx.tensor(fx.attentionFile(0)), fx.tensor(fx.attentionFile(1)) }, o);
    for (int64_t p = 0; p < 16; ++p)
        EXPECT_NEAR(map.data()[p], joint.at({ 0, 1 + p }), 1e-5) << "patch " << p;
    run("rollout " + fx.dir + " --pixel-values " + fx.golden("pixel_values.npy") + " --method flow --out " + file);
    EXPECT_EQ(readNpy(file).shape(), (Shape { 4, 4 }));
    run("rollout " + fx.dir + " --pixel-values " + fx.golden("pixel_values.npy") + " --fusion median --out " + file, 1);
}

#ifdef AS_CLI_DECODES_IMAGES
TEST(VitCli, MnistSamplePngsClassifyAsTheirLabels)
{
    const std::string model = test::sharedPath("models/vit-mnist-tiny/hf");
    const char* files[] = { "mnist_t10k_0000_label7.png", "mnist_t10k_0001_label2.png", "mnist_t10k_0002_label1.png",
        "mnist_t10k_0003_label0.png", "mnist_t10k_0004_label4.png", "mnist_t10k_0005_label1.png",
        "mnist_t10k_0006_label4.png", "mnist_t10k_0007_label9.png", "mnist_t10k_0008_label5.png",
        "mnist_t10k_0009_label9.png" };
    for (const std::string f : files) {
        const std::string out = run(
            "classify " + model + " --image " + test::sharedPath("models/vit-mnist-tiny/samples/" + f) + " --top-k 1");
        const std::string label = f.substr(f.find("label") + 5, 1);
        EXPECT_EQ(out.substr(0, out.find(' ')), label) << f << ": " << out;
    }
}
#else
TEST(VitCli, ImageWithoutQtIsRefusedWithAHint)
{
    const Fixture fx("vit");
    const std::string out = run("classify " + fx.dir + " --image " + fx.dir + "/input0.png", 1);
    EXPECT_NE(out.find("--pixel-values"), std::string::npos) << out;
}
#endif

TEST(VitCli, AttentionRefusesTwoInputs)
{
    const Fixture fx("vit");
    run("attention " + fx.dir + " --pixel-values " + fx.golden("pixel_values.npy") + " --image x.png --out /tmp/x", 2);
}

} // namespace
} // namespace attn
