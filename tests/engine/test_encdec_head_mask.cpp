// SPDX-License-Identifier: MIT
// Head masks of encoder-decoder transformers (MarianMT, BART, T5, Whisper hf-tiny fixtures) and of the ViT + GPT-2
// image captioner, with HF head_mask semantics in the encoder's self-attention, the decoder's self-attention and its
// cross-attention (Seq2SeqHeadRows): a mask of ones is the unmodified run bit for bit, and removing a head equals
// removing its input columns from the output projection in a copy of the weights.
#include "model_test_util.h"

#include "analysis/translation_importance.h"
#include "intervention/intervention.h"
#include "model/encdec_transformer.h"
#include "model/model_loader.h"
#include "model/vision_encoder_decoder.h"
#include "model/vit_model.h"
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
        model = std::dynamic_pointer_cast<const EncoderDecoderModel>(std::shared_ptr<const Model>(loadModel(fx.dir)));
        if (!model) throw Error(fx.dir, "did not load as an encoder-decoder");
    }

    EncoderInput source() const
    {
        EncoderInput in;
        if (GetParam() == "whisper")
            in.features = fx.tensor("input_features.npy");
        else if (GetParam() == "vision-encoder-decoder")
            in.pixels = fx.tensor("pixel_values.npy");
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
    std::shared_ptr<const EncoderDecoderModel> model;
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

/// The largest value of head `head`'s probabilities in `probs` [heads, q, k].
float headMax(const Tensor& probs, int64_t head)
{
    const int64_t per = probs.numel() / probs.dim(0);
    return *std::max_element(probs.data() + head * per, probs.data() + (head + 1) * per);
}

/// A copy of `m` with the output projection's input columns of head `head` in mask row `row` zeroed.
std::shared_ptr<const EncoderDecoderModel> seq2seqWithoutHead(const TransformerSeq2Seq& m, int64_t row, int64_t head)
{
    const Seq2SeqHeadRows rows = m.headRows();
    TransformerSeq2SeqWeights w = m.weights();
    if (row < rows.encoderLayers)
        zeroHeadColumns(w.encoderLayers[static_cast<size_t>(row)].self.oW, head, m.config().headDim);
    else if (row < rows.crossRow(0))
        zeroHeadColumns(
            w.decoderLayers[static_cast<size_t>(row - rows.encoderLayers)].self.oW, head, m.decoderHeadDim());
    else
        zeroHeadColumns(
            w.decoderLayers[static_cast<size_t>(row - rows.crossRow(0))].cross.oW, head, m.decoderHeadDim());
    return makeTransformerSeq2Seq(m.config(), std::move(w));
}

/// The same for any encoder-decoder here: a captioner's encoder rows are its ViT's layers, the rest its text
/// decoder's own rows.
std::shared_ptr<const EncoderDecoderModel> withoutHead(const EncoderDecoderModel& model, int64_t row, int64_t head)
{
    const auto* captioner = dynamic_cast<const VisionEncoderDecoderModel*>(&model);
    if (!captioner) return seq2seqWithoutHead(dynamic_cast<const TransformerSeq2Seq&>(model), row, head);
    const auto& vit = dynamic_cast<const VitModel&>(captioner->imageEncoder());
    const auto& text = dynamic_cast<const TransformerSeq2Seq&>(captioner->textDecoder());
    const int64_t encoderRows = model.headRows().encoderLayers;
    VitWeights vw = vit.weights();
    if (row < encoderRows) zeroHeadColumns(vw.layers[static_cast<size_t>(row)].oW, head, vit.config().headDim);
    auto encoder = std::make_shared<VitModel>(vit.config(), vit.preprocessConfig(), std::move(vw));
    const std::shared_ptr<const EncoderDecoderModel> decoder = row < encoderRows
        ? makeTransformerSeq2Seq(text.config(), text.weights())
        : seq2seqWithoutHead(text, row - encoderRows, head);
    return std::make_shared<VisionEncoderDecoderModel>(model.config(), std::move(encoder), decoder);
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

        const auto copy = withoutHead(*model, c.row, head);
        const auto [copyEnc, independent] = run(*copy, {});

        EXPECT_LE(maxAbsDiff(withMask.logits, independent.logits), kRouteTolerance);
        EXPECT_GT(maxAbsDiff(withMask.logits, clean.logits), kVisibleChange) << "removing the head changed nothing";
        // The captured attention is the multiplied one: the removed head's rows are zero.
        const Tensor& probs = c.row < rows.encoderLayers ? maskedEnc->attention[static_cast<size_t>(c.row)]
            : c.row < rows.crossRow(0)                   ? withMask.attention[static_cast<size_t>(last)]
                                                         : withMask.crossAttention[static_cast<size_t>(last)];
        EXPECT_EQ(headMax(probs, head), 0.0f);
        EXPECT_GT(headMax(probs, 0), 0.0f) << "head 0 is kept";
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

TEST_P(EncDecHeadMask, TheAttentionCommandTakesTheStackedMaskAndNamesAFileThatDoesNotFit)
{
    const Seq2SeqHeadRows rows = model->headRows();
    const int64_t last = rows.decoderLayers - 1;
    std::vector<HeadRef> removed { { rows.crossRow(last), 1 } };
    if (rows.encoderLayers > 0) removed.push_back({ rows.encoderLayers - 1, 1 });
    Intervention removal;
    removal.headMask = seq2seqHeadMaskWith(*model, removed, 0.0f);
    const std::string dir = makeTempDir("encdec-head-mask-cli");
    writeNpy(dir + "/mask.npy", removal.headMask);
    const std::string source = GetParam() == "whisper" ? " --features " + fx.golden("input_features.npy")
        : GetParam() == "vision-encoder-decoder"       ? " --pixel-values " + fx.golden("pixel_values.npy")
                                                       : " --tokens " + joined(fx.ids("input_ids.npy"));
    runCli("attention " + fx.dir + source + " --decoder-tokens " + joined(fx.ids("decoder_input_ids.npy"))
        + " --head-mask " + dir + "/mask.npy --backend cpu --out " + dir);
    ForwardOptions options;
    options.intervention = &removal;
    const auto [encoding, r] = run(*model, options);
    // The same passes, through --backend cpu rather than the bare CPU attention core.
    EXPECT_LE(maxAbsDiff(readNpy(dir + "/logits.npy"), r.logits), 1e-6);
    const std::string cross = dir + "/cross.L" + std::to_string(last) + ".npy";
    EXPECT_EQ(headMax(readNpy(cross), 1), 0.0f) << cross << ": cross head 1 is removed";
    if (rows.encoderLayers > 0) {
        const std::string enc = dir + "/enc_attn.L" + std::to_string(rows.encoderLayers - 1) + ".npy";
        EXPECT_EQ(headMax(readNpy(enc), 1), 0.0f) << enc << ": encoder head 1 is removed";
    }

    writeNpy(dir + "/short.npy", Tensor({ rows.encoderLayers + rows.decoderLayers, rows.heads }));
    const std::string out
        = runCli("attention " + fx.dir + source + " --head-mask " + dir + "/short.npy --backend cpu --out " + dir, 1);
    EXPECT_NE(out.find(dir + "/short.npy"), std::string::npos) << out;
    const std::string fits
        = "does not fit the model's [" + std::to_string(rows.rows()) + ", " + std::to_string(rows.heads) + "]";
    EXPECT_NE(out.find(fits), std::string::npos) << out;
}

INSTANTIATE_TEST_SUITE_P(
    HfTiny, EncDecHeadMask, ::testing::Values("marian", "bart", "t5", "whisper", "vision-encoder-decoder"));

} // namespace
} // namespace attn::test
