// SPDX-License-Identifier: MIT
// Head masks of encoder-decoder transformers (MarianMT, BART, T5, Whisper hf-tiny fixtures), with HF head_mask
// semantics in the encoder's self-attention, the decoder's self-attention and its cross-attention (Seq2SeqHeadRows):
// a mask of ones is the unmodified run bit for bit, and removing a head equals removing its input columns from the
// output projection in a copy of the weights.
#include "model_test_util.h"

#include "analysis/translation_importance.h"
#include "intervention/intervention.h"
#include "model/encdec_transformer.h"
#include "model/model_loader.h"
#include "quant/packed_matrix.h"

#include <algorithm>

namespace attn::test {
namespace {

// Zeroing a head's probabilities and zeroing its columns of the output projection give the same sums with the
// zero terms placed differently in the products (sgemm blocking): float rounding on logits of magnitude < 20.
constexpr double kRouteTolerance = 1e-5;
// Removing one head must move the logits well past that tolerance, or the comparison shows nothing.
constexpr double kVisibleChange = 1e-3;

class EncDecHeadMask : public ::testing::TestWithParam<std::string> {
protected:
    EncDecHeadMask()
        : fx(GetParam())
    {
        model = std::dynamic_pointer_cast<const TransformerSeq2Seq>(std::shared_ptr<const Model>(loadModel(fx.dir)));
        if (!model) throw Error(fx.dir, "did not load as a transformer encoder-decoder");
    }

    EncoderInput source() const
    {
        EncoderInput in;
        if (GetParam() == "whisper")
            in.features = fx.tensor("input_features.npy");
        else
            in.tokens = fx.ids("input_ids.npy");
        return in;
    }

    /// Encoder output and teacher-forced decoder result of `m` under `options`.
    std::pair<std::shared_ptr<const EncoderOutput>, Seq2SeqStepResult> run(
        const EncoderDecoderModel& m, const ForwardOptions& options) const
    {
        auto enc = m.encode(source(), options);
        KvCache cache = m.newDecoderCache();
        Seq2SeqStepResult dec = m.decode(*enc, cache, fx.ids("decoder_input_ids.npy"), options);
        return { std::move(enc), std::move(dec) };
    }

    test::Fixture fx;
    std::shared_ptr<const TransformerSeq2Seq> model;
};

/// `w` with input columns [head * dim, (head + 1) * dim) of the output projection zeroed.
void zeroHeadColumns(Tensor& w, int64_t head, int64_t dim)
{
    if (const PackedMatrix* packed = w.packed()) { // float32 weights read in place from the file: edit a copy
        Tensor dense({ w.dim(0), w.dim(1) });
        packed->dequantizeRows(0, w.dim(0), dense.data());
        w = std::move(dense);
    }
    const int64_t cols = w.dim(1);
    for (int64_t r = 0; r < w.dim(0); ++r)
        for (int64_t j = head * dim; j < (head + 1) * dim; ++j)
            w.data()[r * cols + j] = 0.0f;
}

TEST_P(EncDecHeadMask, AMaskOfOnesIsTheUnmodifiedRunBitForBit)
{
    const Seq2SeqHeadRows rows = model->headRows();
    ASSERT_EQ(rows.rows(), model->config().numLayers + 2 * model->decoderLayers());
    Intervention ones;
    ones.headMask = seq2seqHeadMaskWith(*model, {}, 0.0f);
    ForwardOptions masked;
    masked.intervention = &ones;
    const auto [cleanEnc, clean] = run(*model, {});
    const auto [maskedEnc, withMask] = run(*model, masked);
    EXPECT_EQ(maskedEnc->hidden.storage(), cleanEnc->hidden.storage());
    for (size_t l = 0; l < cleanEnc->attention.size(); ++l)
        EXPECT_EQ(maskedEnc->attention[l].storage(), cleanEnc->attention[l].storage()) << "encoder layer " << l;
    for (size_t l = 0; l < clean.attention.size(); ++l) {
        EXPECT_EQ(withMask.attention[l].storage(), clean.attention[l].storage()) << "decoder layer " << l;
        EXPECT_EQ(withMask.crossAttention[l].storage(), clean.crossAttention[l].storage()) << "cross layer " << l;
    }
    EXPECT_EQ(withMask.logits.storage(), clean.logits.storage());
}

TEST_P(EncDecHeadMask, RemovingAHeadEqualsZeroingItsOutputProjectionColumns)
{
    const Seq2SeqHeadRows rows = model->headRows();
    const int64_t last = rows.decoderLayers - 1, head = rows.heads - 1;
    const auto [cleanEnc, clean] = run(*model, {});
    struct Case {
        const char* what;
        int64_t row;
    };
    std::vector<Case> cases { { "decoder self-attention", rows.decoderSelfRow(last) },
        { "cross-attention", rows.crossRow(last) } };
    if (rows.encoderLayers > 0) cases.insert(cases.begin(), { "encoder self-attention", rows.encoderLayers - 1 });
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        Intervention removal;
        removal.headMask = seq2seqHeadMaskWith(*model, { { c.row, head } }, 0.0f);
        ForwardOptions masked;
        masked.intervention = &removal;
        const auto [maskedEnc, withMask] = run(*model, masked);

        TransformerSeq2SeqWeights w = model->weights();
        if (c.row < rows.encoderLayers)
            zeroHeadColumns(w.encoderLayers[static_cast<size_t>(c.row)].self.oW, head, model->config().headDim);
        else if (c.row < rows.crossRow(0))
            zeroHeadColumns(w.decoderLayers[static_cast<size_t>(last)].self.oW, head, model->decoderHeadDim());
        else
            zeroHeadColumns(w.decoderLayers[static_cast<size_t>(last)].cross.oW, head, model->decoderHeadDim());
        const auto copy = makeTransformerSeq2Seq(model->config(), std::move(w));
        const auto [copyEnc, independent] = run(*copy, {});

        EXPECT_LE(maxAbsDiff(withMask.logits, independent.logits), kRouteTolerance);
        EXPECT_GT(maxAbsDiff(withMask.logits, clean.logits), kVisibleChange) << "removing the head changed nothing";
        // The captured attention is the multiplied one: the removed head's rows are zero.
        const Tensor& probs = c.row < rows.encoderLayers ? maskedEnc->attention[static_cast<size_t>(c.row)]
            : c.row < rows.crossRow(0)                   ? withMask.attention[static_cast<size_t>(last)]
                                                         : withMask.crossAttention[static_cast<size_t>(last)];
        const int64_t per = probs.numel() / probs.dim(0);
        EXPECT_EQ(*std::max_element(probs.data() + head * per, probs.data() + (head + 1) * per), 0.0f);
        EXPECT_GT(*std::max_element(probs.data(), probs.data() + per), 0.0f) << "head 0 is kept";
    }
}

TEST_P(EncDecHeadMask, AMaskOfTheWrongShapeOrWithEditsIsRefused)
{
    Intervention wrong;
    wrong.headMask = Tensor({ model->config().numLayers + model->decoderLayers(), model->headRows().heads });
    wrong.headMask.storage().assign(static_cast<size_t>(wrong.headMask.numel()), 1.0f);
    ForwardOptions options;
    options.intervention = &wrong;
    try {
        model->encode(source(), options);
        ADD_FAILURE() << "a mask without the cross-attention rows was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("does not fit"), std::string::npos) << e.what();
    }
    Intervention edits;
    edits.keyMasks.push_back({ { 0 }, {} });
    options.intervention = &edits;
    EXPECT_THROW(model->encode(source(), options), Error);
}

std::string joined(const std::vector<int64_t>& ids)
{
    std::string out;
    for (const int64_t id : ids)
        out += (out.empty() ? "" : ",") + std::to_string(id);
    return out;
}

TEST(EncDecHeadMaskCli, TheAttentionCommandTakesTheStackedMaskAndNamesAFileThatDoesNotFit)
{
    const test::Fixture fx("marian");
    const auto model
        = std::dynamic_pointer_cast<const EncoderDecoderModel>(std::shared_ptr<const Model>(loadModel(fx.dir)));
    ASSERT_NE(model, nullptr);
    const Seq2SeqHeadRows rows = model->headRows();
    Intervention removal;
    removal.headMask = seq2seqHeadMaskWith(*model, { { rows.crossRow(1), 1 } }, 0.0f);
    const std::string dir = makeTempDir("encdec-head-mask-cli");
    writeNpy(dir + "/mask.npy", removal.headMask);
    const std::string source = joined(fx.ids("input_ids.npy")), target = joined(fx.ids("decoder_input_ids.npy"));
    runCli("attention " + fx.dir + " --tokens " + source + " --decoder-tokens " + target + " --head-mask " + dir
        + "/mask.npy --backend cpu --out " + dir);
    ForwardOptions options;
    options.intervention = &removal;
    const auto encoding = model->encode({ fx.ids("input_ids.npy"), {} }, options);
    KvCache cache = model->newDecoderCache();
    const Seq2SeqStepResult r = model->decode(*encoding, cache, fx.ids("decoder_input_ids.npy"), options);
    // The same passes, through --backend cpu rather than the bare CPU attention core.
    EXPECT_LE(maxAbsDiff(readNpy(dir + "/logits.npy"), r.logits), 1e-6);
    const Tensor cross = readNpy(dir + "/cross.L1.npy");
    const int64_t per = cross.numel() / cross.dim(0);
    EXPECT_EQ(*std::max_element(cross.data() + per, cross.data() + 2 * per), 0.0f) << "cross L1 head 1 is removed";

    writeNpy(dir + "/short.npy", Tensor({ rows.encoderLayers, rows.heads }));
    const std::string out = runCli(
        "attention " + fx.dir + " --tokens " + source + " --head-mask " + dir + "/short.npy --backend cpu --out " + dir,
        1);
    EXPECT_NE(out.find(dir + "/short.npy"), std::string::npos) << out;
    EXPECT_NE(out.find("does not fit the model's [6, 4]"), std::string::npos) << out;
}

INSTANTIATE_TEST_SUITE_P(HfTiny, EncDecHeadMask, ::testing::Values("marian", "bart", "t5", "whisper"));

} // namespace
} // namespace attn::test
