// SPDX-License-Identifier: MIT
// Gemma and Gemma 2: embeddings times sqrt(hidden), RMSNorm with (1 + w), GeGLU, tied head; Gemma 2 adds
// sandwich norms, soft-capping, query_pre_attn_scalar and alternating local (sliding) / global layers.
#include "model/families/decoder_config.h"
#include "model/families/families.h"
#include "model/llama_model.h"

namespace attn::families {

ModelFamily gemma()
{
    ModelFamily f;
    f.modelTypes = { "gemma", "gemma2" };
    f.capabilities = kGenerate;
    f.readConfig = [](const ConfigFields& f, ModelConfig& c) {
        readRotaryDecoder(f, c);
        c.activation = f.optString("hidden_activation", f.optString("hidden_act", "gelu_pytorch_tanh"));
        c.tieWordEmbeddings = f.optBool("tie_word_embeddings", true);
        c.attentionBias = f.optBool("attention_bias", false);
        c.scaleEmbedding = true;
        if (c.modelType == "gemma2") {
            c.attnLogitSoftcap = f.optNumber("attn_logit_softcapping", 0.0);
            c.finalLogitSoftcap = f.optNumber("final_logit_softcapping", 0.0);
            c.queryPreAttnScalar = f.optNumber("query_pre_attn_scalar", 0.0);
            c.slidingWindow = f.optInteger("sliding_window", 0);
            c.alternatingWindow = true; // HF: layer i is local iff not bool(i % 2)
            if (c.attnLogitSoftcap < 0 || c.finalLogitSoftcap < 0 || c.queryPreAttnScalar < 0)
                throw Error(f.source(), "soft-capping values and query_pre_attn_scalar must not be negative");
        }
    };
    f.load = [](const ModelSource& s) -> std::shared_ptr<Model> { return loadHfLlama(s); };
    return f;
}

} // namespace attn::families
