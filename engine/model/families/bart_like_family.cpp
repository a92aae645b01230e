// SPDX-License-Identifier: MIT
// MarianMT, BART and Whisper: BART-style encoder-decoders.
#include "model/encdec_loaders.h"
#include "model/families/families.h"

namespace attn::families {

ModelFamily bartLike()
{
    ModelFamily f;
    f.modelTypes = { "marian", "bart", "whisper" };
    f.capabilities = kTranslate | kAlign;
    f.readConfig = [](const ConfigFields& f, ModelConfig& c) {
        c.kind = ModelKind::EncoderDecoder;
        c.hiddenSize = f.integer("d_model");
        c.numLayers = f.integer("encoder_layers");
        c.numDecoderLayers = f.integer("decoder_layers");
        c.numHeads = f.integer("encoder_attention_heads");
        c.numDecoderHeads = f.integer("decoder_attention_heads");
        c.numKvHeads = c.numHeads;
        c.intermediateSize = f.integer("encoder_ffn_dim");
        c.decoderIntermediateSize = f.integer("decoder_ffn_dim");
        c.vocabSize = f.integer("vocab_size");
        c.maxPositions = f.optInteger("max_position_embeddings", 0);
        c.activation = f.optString("activation_function", "gelu");
        c.scaleEmbedding = f.optBool("scale_embedding", false);
        c.normEps = 1e-5;
        if (c.numDecoderHeads > 0 && c.hiddenSize % c.numDecoderHeads != 0)
            throw Error(f.source(),
                "d_model " + std::to_string(c.hiddenSize) + " is not divisible by decoder_attention_heads "
                    + std::to_string(c.numDecoderHeads));
        if (c.modelType == "whisper") {
            c.kind = ModelKind::Speech;
            c.capabilities = 0; // audio in: text-to-text translation and word alignment do not apply
            c.numMelBins = f.integer("num_mel_bins");
            c.maxPositions = f.integer("max_source_positions");
            c.maxTargetPositions = f.integer("max_target_positions");
        }
    };
    f.load = [](const ModelSource& s) -> std::shared_ptr<Model> { return loadBartFamily(s); };
    return f;
}

} // namespace attn::families
