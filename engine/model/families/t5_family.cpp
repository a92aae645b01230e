// SPDX-License-Identifier: MIT
// T5ForConditionalGeneration.
#include "model/encdec_loaders.h"
#include "model/families/families.h"

namespace attn::families {

ModelFamily t5()
{
    ModelFamily f;
    f.modelTypes = { "t5" };
    f.capabilities = kTranslate | kAlign;
    f.readConfig = [](const ConfigFields& f, ModelConfig& c) {
        c.kind = ModelKind::EncoderDecoder;
        c.hiddenSize = f.integer("d_model");
        c.headDim = f.integer("d_kv");
        c.numHeads = f.integer("num_heads");
        c.numDecoderHeads = c.numHeads;
        c.numKvHeads = c.numHeads;
        c.numLayers = f.integer("num_layers");
        c.numDecoderLayers = f.optInteger("num_decoder_layers", c.numLayers);
        c.intermediateSize = f.integer("d_ff");
        c.decoderIntermediateSize = c.intermediateSize;
        c.vocabSize = f.integer("vocab_size");
        c.relativeBuckets = f.optInteger("relative_attention_num_buckets", 32);
        c.relativeMaxDistance = f.optInteger("relative_attention_max_distance", 128);
        c.normEps = f.optNumber("layer_norm_epsilon", 1e-6);
        const std::string proj = f.optString("feed_forward_proj", "relu");
        c.gatedFeedForward = proj.rfind("gated-", 0) == 0;
        c.activation = c.gatedFeedForward ? proj.substr(6) : proj;
        c.scaleAttention = false;
        c.tieWordEmbeddings = f.optBool("tie_word_embeddings", true);
    };
    f.load = [](const ModelSource& s) -> std::shared_ptr<Model> { return loadT5(s); };
    return f;
}

} // namespace attn::families
