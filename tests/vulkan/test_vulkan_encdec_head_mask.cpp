// SPDX-License-Identifier: MIT
// Encoder-decoder head masks (one [E + 2D, heads] mask: encoder, decoder and cross-attention rows, HF head_mask
// semantics) on the resident Vulkan stream against the CPU stream, on the hf-tiny Marian, BART, T5, Whisper and
// ViT + GPT-2 captioner fixtures: the masked encoder and decoder attention and the logits agree within the fp32
// parity bound, a removed head's probabilities are exactly zero on the device, and the mask changes the device's
// logits (it is applied, not ignored).
#include "vulkan_test_support.h"

#include "analysis/translation_importance.h"
#include "core/npy.h"
#include "intervention/intervention.h"
#include "model/kv_cache.h"
#include "model/model_loader.h"
#include "model/seq2seq_model.h"
#include "support/shared_data.h"

#include <algorithm>

namespace attn::test {
namespace {

// Removing a head must move the logits well past the parity bound, or the comparison could not see an ignored mask.
constexpr double kVisibleChange = 1e-3;

class VulkanEncDecHeadMask : public VulkanTest, public ::testing::WithParamInterface<const char*> {
protected:
    /// The fixture's source (tokens, log-mel features or pixel values) from its golden inputs.
    EncoderInput source() const
    {
        const std::string name = GetParam();
        EncoderInput in;
        if (name == "whisper")
            in.features = readNpy(golden("input_features.npy"));
        else if (name == "vision-encoder-decoder")
            in.pixels = readNpy(golden("pixel_values.npy"));
        else
            in.tokens = readNpyInts(golden("input_ids.npy"));
        return in;
    }

    std::string golden(const std::string& file) const
    {
        return sharedPath("fixtures/hf-tiny/" + std::string(GetParam()) + "/golden/item0/" + file);
    }

    struct Run {
        std::shared_ptr<const EncoderOutput> encoding;
        Seq2SeqStepResult decoded;
    };

    /// Encoding and teacher-forced decoding of the golden target under `intervention` on `backend` (null: the CPU).
    Run run(const EncoderDecoderModel& model, const Intervention* intervention, Backend* backend) const
    {
        ForwardOptions options;
        options.backend = backend;
        options.intervention = intervention;
        Run r;
        r.encoding = model.encode(source(), options);
        KvCache cache = model.newDecoderCache();
        r.decoded = model.decode(*r.encoding, cache, readNpyInts(golden("decoder_input_ids.npy")), options);
        return r;
    }
};

/// The largest value of head `head`'s probabilities in `probs` [heads, q, k].
float headMax(const Tensor& probs, int64_t head)
{
    const int64_t per = probs.numel() / probs.dim(0);
    return *std::max_element(probs.data() + head * per, probs.data() + (head + 1) * per);
}

TEST_P(VulkanEncDecHeadMask, MaskedRunsMatchTheCpu)
{
    const auto model = std::dynamic_pointer_cast<const EncoderDecoderModel>(
        std::shared_ptr<const Model>(loadModel(sharedPath("fixtures/hf-tiny/" + std::string(GetParam())))));
    ASSERT_NE(model, nullptr);
    const Seq2SeqHeadRows rows = model->headRows();
    const int64_t last = rows.decoderLayers - 1, removed = rows.heads - 1;
    // One head removed in every attention kind, and another scaled, so that each row kind's factors reach the device.
    std::vector<HeadRef> zeroed { { rows.decoderSelfRow(last), removed }, { rows.crossRow(last), removed } };
    if (rows.encoderLayers > 0) zeroed.push_back({ rows.encoderLayers - 1, removed });
    Intervention mask;
    mask.headMask = seq2seqHeadMaskWith(*model, zeroed, 0.0f);
    for (const int64_t row : { int64_t(0), rows.crossRow(0) })
        mask.headMask.data()[row * rows.heads] = 0.5f;

    const Run cpu = run(*model, &mask, nullptr);
    const DeviceTraffic before = vk().traffic();
    const Run gpu = run(*model, &mask, &vk());
    EXPECT_GT(vk().traffic().submits, before.submits) << "it did not run on the device";

    ASSERT_EQ(gpu.encoding->attention.size(), cpu.encoding->attention.size());
    for (size_t l = 0; l < cpu.encoding->attention.size(); ++l)
        EXPECT_LE(maxAbsDiff(gpu.encoding->attention[l], cpu.encoding->attention[l]), kParityTolerance)
            << "encoder layer " << l;
    ASSERT_EQ(gpu.decoded.attention.size(), cpu.decoded.attention.size());
    ASSERT_EQ(gpu.decoded.crossAttention.size(), cpu.decoded.crossAttention.size());
    for (size_t l = 0; l < cpu.decoded.attention.size(); ++l) {
        EXPECT_LE(maxAbsDiff(gpu.decoded.attention[l], cpu.decoded.attention[l]), kParityTolerance)
            << "decoder layer " << l;
        EXPECT_LE(maxAbsDiff(gpu.decoded.crossAttention[l], cpu.decoded.crossAttention[l]), kParityTolerance)
            << "cross layer " << l;
    }
    EXPECT_LE(maxAbsDiff(gpu.decoded.logits, cpu.decoded.logits), kParityTolerance);

    // The removed heads' probabilities are exactly zero on the device, as the CPU captures them.
    const size_t lastLayer = static_cast<size_t>(last);
    EXPECT_EQ(headMax(gpu.decoded.attention[lastLayer], removed), 0.0f) << "decoder self-attention";
    EXPECT_EQ(headMax(gpu.decoded.crossAttention[lastLayer], removed), 0.0f) << "cross-attention";
    if (rows.encoderLayers > 0) {
        EXPECT_EQ(headMax(gpu.encoding->attention.back(), removed), 0.0f) << "encoder self-attention";
    }
    const Run unmasked = run(*model, nullptr, &vk());
    EXPECT_GT(maxAbsDiff(gpu.decoded.logits, unmasked.decoded.logits), kVisibleChange) << "the mask changed nothing";
}

INSTANTIATE_TEST_SUITE_P(
    HfTiny, VulkanEncDecHeadMask, ::testing::Values("marian", "bart", "t5", "whisper", "vision-encoder-decoder"));

} // namespace
} // namespace attn::test
