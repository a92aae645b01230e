// SPDX-License-Identifier: MIT
// BERT (BertForMaskedLM / BertModel).
#include "model/bert_model.h"
#include "core/checked.h"
#include "model/families/families.h"

namespace attn::families {

ModelFamily bert()
{
    ModelFamily f;
    f.modelTypes = { "bert" };
    f.capabilities = kEncode;
    f.readConfig = [](const ConfigFields& f, ModelConfig& c) {
        c.kind = ModelKind::Encoder;
        c.numLayers = f.integer("num_hidden_layers");
        c.numHeads = f.integer("num_attention_heads");
        c.numKvHeads = c.numHeads;
        c.hiddenSize = f.integer("hidden_size");
        c.intermediateSize = f.optInteger("intermediate_size", mulOrThrow(4, c.hiddenSize, f.source(), "4 * hidden_size"));
        c.vocabSize = f.integer("vocab_size");
        c.maxPositions = f.optInteger("max_position_embeddings", 512);
        c.typeVocabSize = f.optInteger("type_vocab_size", 2);
        c.normEps = f.optNumber("layer_norm_eps", 1e-12);
        c.activation = f.optString("hidden_act", "gelu");
        c.tieWordEmbeddings = true;
        c.attentionBias = true;
        const std::string pos = f.optString("position_embedding_type", "absolute");
        if (pos != "absolute")
            throw Error(
                f.source(), "bert position_embedding_type \"" + pos + "\" is not supported (only \"absolute\")");
    };
    f.load = [](const ModelSource& s) -> std::shared_ptr<Model> { return loadBert(s); };
    return f;
}

} // namespace attn::families
