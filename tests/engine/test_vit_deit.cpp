// SPDX-License-Identifier: MIT
// DeiT wiring, built from the hf-tiny ViT weights under DeiT names (there is no DeiT fixture): the distillation
// token joins the sequence as token 1, and ...WithTeacher averages its two heads.
#include "io/safetensors.h"
#include "model/model_loader.h"
#include "model/vision_model.h"
#include "model_test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>
#include <map>

namespace attn {
namespace {

using Weights = std::map<std::string, Tensor>;

Weights readAll(const std::string& path)
{
    const auto store = SafetensorsStore::open(path);
    Weights w;
    for (const auto& name : store->names()) {
        const TensorInfo& ti = store->info(name);
        Tensor t(ti.shape);
        std::memcpy(t.data(), store->rawData(ti), sizeof(float) * static_cast<size_t>(t.numel()));
        w[name] = std::move(t);
    }
    return w;
}

void writeFolder(const std::string& dir, const Weights& weights, const std::string& architecture)
{
    nlohmann::json header = nlohmann::json::object();
    uint64_t offset = 0;
    for (const auto& [name, t] : weights) {
        const uint64_t bytes = sizeof(float) * static_cast<uint64_t>(t.numel());
        header[name] = { { "dtype", "F32" }, { "shape", t.shape() }, { "data_offsets", { offset, offset + bytes } } };
        offset += bytes;
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    std::ofstream out(dir + "/model.safetensors", std::ios::binary);
    const uint64_t size = text.size(); // little-endian host
    out.write(reinterpret_cast<const char*>(&size), 8);
    out << text;
    for (const auto& [name, t] : weights)
        out.write(reinterpret_cast<const char*>(t.data()), static_cast<std::streamsize>(sizeof(float) * t.numel()));
    std::ifstream in(test::sharedPath("fixtures/hf-tiny/vit/config.json"));
    nlohmann::json config = nlohmann::json::parse(in);
    config["model_type"] = "deit";
    config["architectures"] = { architecture };
    std::ofstream(dir + "/config.json") << config.dump();
}

/// The ViT weights renamed to DeiT, with a distillation token and its position row.
Weights deitBody()
{
    Weights w;
    for (auto& [name, t] : readAll(test::sharedPath("fixtures/hf-tiny/vit/model.safetensors")))
        if (name.rfind("vit.", 0) == 0) w["deit." + name.substr(4)] = t;
    const Tensor& cls = w["deit.embeddings.cls_token"];
    Tensor dist(cls.shape());
    for (int64_t i = 0; i < dist.numel(); ++i)
        dist.data()[i] = 0.3f - cls.data()[i];
    w["deit.embeddings.distillation_token"] = dist;
    const Tensor& pos = w["deit.embeddings.position_embeddings"]; // [1, 17, 32] -> [1, 18, 32]
    std::vector<float> rows(pos.data(), pos.data() + 32);
    for (float& v : rows)
        v *= -0.5f;
    rows.insert(rows.begin(), pos.data(), pos.data() + 32);
    rows.insert(rows.end(), pos.data() + 32, pos.data() + pos.numel());
    w["deit.embeddings.position_embeddings"] = Tensor({ 1, 18, 32 }, rows);
    return w;
}

TEST(VitDeit, DistillationTokenAndTeacherHeadAveraging)
{
    const Weights vit = readAll(test::sharedPath("fixtures/hf-tiny/vit/model.safetensors"));
    const Tensor pixels = readNpy(test::sharedPath("fixtures/hf-tiny/vit/golden/item0/pixel_values.npy"));

    Weights plain = deitBody();
    plain["classifier.weight"] = vit.at("classifier.weight");
    plain["classifier.bias"] = vit.at("classifier.bias");
    const std::string plainDir = test::makeTempDir("deit-plain");
    writeFolder(plainDir, plain, "DeiTForImageClassification");

    // A teacher head that contributes nothing: the average is then half the class-token head.
    Weights teacher = deitBody();
    teacher["cls_classifier.weight"] = vit.at("classifier.weight");
    teacher["cls_classifier.bias"] = vit.at("classifier.bias");
    teacher["distillation_classifier.weight"] = Tensor({ 10, 32 });
    teacher["distillation_classifier.bias"] = Tensor({ 10 });
    const std::string teacherDir = test::makeTempDir("deit-teacher");
    writeFolder(teacherDir, teacher, "DeiTForImageClassificationWithTeacher");

    const auto a = std::dynamic_pointer_cast<const VisionModel>(loadModel(plainDir));
    const auto b = std::dynamic_pointer_cast<const VisionModel>(loadModel(teacherDir));
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->prefixTokens(), 2);
    EXPECT_EQ(a->tokenNames(32, 32)[1], "[DIST]");
    const StepResult ra = a->classify(pixels, {}), rb = b->classify(pixels, {});
    ASSERT_EQ(ra.attention.size(), 2u);
    EXPECT_EQ(ra.attention[0].shape(), (Shape { 4, 18, 18 }));
    ASSERT_EQ(rb.logits.shape(), (Shape { 1, 10 }));
    for (int64_t i = 0; i < 10; ++i)
        EXPECT_NEAR(rb.logits.data()[i], 0.5f * ra.logits.data()[i], 1e-6) << i;
    // The distillation token changes the class token's context: DeiT logits are not ViT's.
    EXPECT_GT(test::maxAbsDiff(ra.logits.reshaped({ 10 }),
                  readNpy(test::sharedPath("fixtures/hf-tiny/vit/golden/item0/logits.npy"))),
        1e-3);

    // Only one of the teacher's two heads is an error, not a silently half-used model.
    teacher.erase("distillation_classifier.weight");
    teacher.erase("distillation_classifier.bias");
    writeFolder(teacherDir, teacher, "DeiTForImageClassificationWithTeacher");
    EXPECT_THROW(loadModel(teacherDir), Error);
}

} // namespace
} // namespace attn
