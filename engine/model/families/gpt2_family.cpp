// SPDX-License-Identifier: MIT
// GPT-2 (GPT2LMHeadModel / GPT2Model).
#include "core/checked.h"
#include "model/families/families.h"
#include "model/gpt2_model.h"

namespace attn::families {

ModelFamily gpt2()
{
    ModelFamily f;
    f.modelTypes = { "gpt2" };
    f.capabilities = kGenerate;
    f.readConfig = [](const ConfigFields& f, ModelConfig& c) {
        c.kind = ModelKind::Decoder;
        c.numLayers = f.integer("n_layer");
        c.numHeads = f.integer("n_head");
        c.numKvHeads = c.numHeads;
        c.hiddenSize = f.integer("n_embd");
        c.intermediateSize = f.optInteger("n_inner", mulOrThrow(4, c.hiddenSize, f.source(), "4 * n_embd"));
        c.vocabSize = f.integer("vocab_size");
        c.maxPositions = f.optInteger("n_positions", 1024);
        c.normEps = f.optNumber("layer_norm_epsilon", 1e-5);
        c.activation = f.optString("activation_function", "gelu_new");
        c.tieWordEmbeddings = true;
        c.attentionBias = true;
        if (f.optBool("scale_attn_by_inverse_layer_idx", false) || f.optBool("reorder_and_upcast_attn", false))
            throw Error(
                f.source(), "gpt2 options scale_attn_by_inverse_layer_idx / reorder_and_upcast_attn are not supported");
    };
    f.load = [](const ModelSource& s) -> std::shared_ptr<Model> { return loadGpt2(s); };
    return f;
}

} // namespace attn::families
