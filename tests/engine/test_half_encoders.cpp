// SPDX-License-Identifier: MIT
// Encoders and encoder-decoders (BERT, ViT, BART, Marian, T5, Whisper, the ViT + GPT-2 captioner) loaded from F16 or
// BF16 copies of their hf-tiny fixtures keep every weight matrix half and compute what the float32 widening of the
// same weights computes, within each fixture's own tolerances (the float32 path is checked against the HF goldens in
// test_models_bert, test_vit_model and test_encdec_models).
#include "model/bert_model.h"
#include "model/encdec_transformer.h"
#include "model/kv_cache.h"
#include "model/model_loader.h"
#include "model/vision_encoder_decoder.h"
#include "model/vit_model.h"
#include "model_test_util.h"
#include "support/half_copy.h"

#include <gtest/gtest.h>

#include <map>

namespace attn {
namespace {

using test::HalfCase;
using test::LoadedWeights;

void addMatrices(LoadedWeights& out, std::initializer_list<const Tensor*> matrices)
{
    out.matrices.insert(out.matrices.end(), matrices);
}

void addVectors(LoadedWeights& out, std::initializer_list<const Tensor*> vectors)
{
    out.vectors.insert(out.vectors.end(), vectors);
}

void addWeights(LoadedWeights& out, const BertWeights& w)
{
    addMatrices(out, { &w.word, &w.pos, &w.type, &w.head.dW });
    addVectors(out, { &w.embLnW, &w.embLnB, &w.head.dB, &w.head.lnW, &w.head.lnB, &w.head.bias });
    for (const BertLayer& l : w.layers) {
        addMatrices(out, { &l.qW, &l.kW, &l.vW, &l.oW, &l.iW, &l.outW });
        addVectors(out, { &l.qB, &l.kB, &l.vB, &l.oB, &l.ln1w, &l.ln1b, &l.iB, &l.outB, &l.ln2w, &l.ln2b });
    }
}

void addWeights(LoadedWeights& out, const VitWeights& w)
{
    addMatrices(out, { &w.patchW });
    addVectors(out, { &w.patchB, &w.prefix, &w.positions, &w.lnW, &w.lnB });
    for (const VitLayer& l : w.layers) {
        addMatrices(out, { &l.qW, &l.kW, &l.vW, &l.oW, &l.iW, &l.outW });
        addVectors(out, { &l.ln1w, &l.ln1b, &l.qB, &l.kB, &l.vB, &l.oB, &l.ln2w, &l.ln2b, &l.iB, &l.outB });
    }
    for (const VitHead& h : w.heads) {
        addMatrices(out, { &h.w });
        addVectors(out, { &h.b });
    }
}

void addWeights(LoadedWeights& out, const ProjectionWeights& p)
{
    addMatrices(out, { &p.qW, &p.kW, &p.vW, &p.oW });
    addVectors(out, { &p.qB, &p.kB, &p.vB, &p.oB });
}

void addWeights(LoadedWeights& out, const FeedForwardWeights& f)
{
    addMatrices(out, { &f.inW, &f.gateW, &f.outW });
    addVectors(out, { &f.inB, &f.outB });
}

void addWeights(LoadedWeights& out, const NormWeights& n)
{
    addVectors(out, { &n.weight, &n.bias });
}

/// `computedPositions`: Marian's sinusoids are computed at load (not in the file), a float32 table by design.
void addWeights(LoadedWeights& out, const StackWeights& s, bool computedPositions)
{
    addMatrices(out, { &s.tokenEmbedding });
    (computedPositions ? out.vectors : out.matrices).push_back(&s.positions);
    addVectors(out, { &s.relativeBias });
    addWeights(out, s.embeddingNorm);
    addWeights(out, s.finalNorm);
}

void addWeights(LoadedWeights& out, const TransformerSeq2Seq& model)
{
    const TransformerSeq2SeqWeights& w = model.weights();
    const bool marian = model.config().modelType == "marian";
    addWeights(out, w.encoder, marian);
    addWeights(out, w.decoder, marian);
    addMatrices(out, { &w.lmHead, &w.statesProjW, &w.audio.conv1W, &w.audio.conv2W });
    addVectors(out, { &w.finalLogitsBias, &w.statesProjB, &w.audio.conv1B, &w.audio.conv2B });
    for (const EncoderLayerWeights& l : w.encoderLayers) {
        addWeights(out, l.self);
        addWeights(out, l.ff);
        addWeights(out, l.selfNorm);
        addWeights(out, l.ffNorm);
    }
    for (const DecoderLayerWeights& l : w.decoderLayers) {
        addWeights(out, l.self);
        addWeights(out, l.cross);
        addWeights(out, l.ff);
        addWeights(out, l.selfNorm);
        addWeights(out, l.crossNorm);
        addWeights(out, l.ffNorm);
    }
}

/// The weights of a loaded encoder or encoder-decoder, without the tensors its family leaves empty.
LoadedWeights weightsOf(const Model& model)
{
    LoadedWeights out;
    if (const auto* bert = dynamic_cast<const BertModel*>(&model)) addWeights(out, bert->weights());
    if (const auto* vit = dynamic_cast<const VitModel*>(&model)) addWeights(out, vit->weights());
    if (const auto* seq2seq = dynamic_cast<const TransformerSeq2Seq*>(&model)) addWeights(out, *seq2seq);
    if (const auto* captioner = dynamic_cast<const VisionEncoderDecoderModel*>(&model)) {
        addWeights(out, dynamic_cast<const VitModel&>(captioner->imageEncoder()).weights());
        addWeights(out, dynamic_cast<const TransformerSeq2Seq&>(captioner->textDecoder()));
    }
    for (auto* list : { &out.matrices, &out.vectors })
        std::erase_if(*list, [](const Tensor* t) { return t->empty(); });
    return out;
}

/// A forward pass over the fixture's golden inputs: its outputs under the golden names that give their tolerances.
using Outputs = std::map<std::string, std::vector<Tensor>>;

Outputs forwardOf(const Model& model, const test::Fixture& fx)
{
    ForwardOptions options;
    options.wantHiddenStates = true;
    if (const auto* encoder = dynamic_cast<const EncoderModel*>(&model)) {
        const StepResult r = encoder->encode(fx.ids("input_ids.npy"), fx.ids("token_type_ids.npy"), {}, options);
        return { { "attentions", r.attention }, { "hidden_states", r.hiddenStates }, { "logits", { r.logits } } };
    }
    if (const auto* vision = dynamic_cast<const VisionModel*>(&model)) {
        const StepResult r = vision->classify(fx.tensor("pixel_values.npy"), options);
        return { { "attentions", r.attention }, { "hidden_states", r.hiddenStates }, { "logits", { r.logits } } };
    }
    const auto& seq2seq = dynamic_cast<const EncoderDecoderModel&>(model);
    EncoderInput source;
    if (fx.name == "whisper")
        source.features = fx.tensor("input_features.npy");
    else if (fx.name == "vision-encoder-decoder")
        source.pixels = fx.tensor("pixel_values.npy");
    else
        source.tokens = fx.ids("input_ids.npy");
    const auto enc = seq2seq.encode(source, options);
    KvCache cache = seq2seq.newDecoderCache();
    const Seq2SeqStepResult dec = seq2seq.decode(*enc, cache, fx.ids("decoder_input_ids.npy"), options);
    return { { "encoder_attentions", enc->attention }, { "encoder_hidden_states", enc->hiddenStates },
        { "decoder_attentions", dec.attention }, { "cross_attentions", dec.crossAttention },
        { "decoder_hidden_states", dec.hiddenStates }, { "logits", { dec.logits } } };
}

class HalfEncoders : public ::testing::TestWithParam<HalfCase> { };

/// Loaded from a half copy, every weight matrix stays packed in the stored type (restoring the widening at load
/// fails here: the results alone cannot show it), the weights hold about the file's bytes, and every output equals
/// the float32 widening's within the fixture's tolerance for it (only the order of the float32 sums differs).
TEST_P(HalfEncoders, MatricesStayHalfAndMatchTheirFloat32Widening)
{
    const HalfCase c = GetParam();
    const test::Fixture fx(c.fixture);
    const std::string tmp = test::makeTempDir(std::string("half-") + c.fixture);
    const std::string half = test::roundedFolder(c.fixture, tmp + "/half", c.type, true);
    const auto model = loadModel(half);
    const LoadedWeights weights = weightsOf(*model);
    // At least the four attention projections and two feed-forward matrices of every layer.
    ASSERT_GE(weights.matrices.size(), 6 * static_cast<size_t>(model->config().numLayers));
    test::expectKeptHalf(weights, c.type, half + "/model.safetensors");

    const Outputs got = forwardOf(*model, fx);
    const Outputs want = forwardOf(*loadModel(test::roundedFolder(c.fixture, tmp + "/f32", c.type, false)), fx);
    ASSERT_EQ(got.size(), want.size());
    for (const auto& [name, tensors] : want) {
        const std::vector<Tensor>& mine = got.at(name);
        ASSERT_FALSE(tensors.empty()) << name;
        ASSERT_EQ(mine.size(), tensors.size()) << name;
        for (size_t i = 0; i < tensors.size(); ++i) {
            ASSERT_FALSE(tensors[i].empty()) << name << " " << i;
            EXPECT_LE(test::maxAbsDiff(mine[i], tensors[i]), fx.tolerance(name)) << name << " " << i;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Families, HalfEncoders,
    ::testing::Values(HalfCase { "bert", GgmlType::F16 }, HalfCase { "bert", GgmlType::BF16 },
        HalfCase { "vit", GgmlType::BF16 }, HalfCase { "bart", GgmlType::F16 }, HalfCase { "marian", GgmlType::BF16 },
        HalfCase { "t5", GgmlType::BF16 }, HalfCase { "whisper", GgmlType::F16 },
        HalfCase { "vision-encoder-decoder", GgmlType::BF16 }),
    [](const auto& info) { return test::halfCaseName(info.param); });

} // namespace
} // namespace attn
