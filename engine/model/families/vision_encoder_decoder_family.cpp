// SPDX-License-Identifier: MIT
// Image captioners in HF's VisionEncoderDecoderModel layout: a ViT/DeiT encoder and a GPT-2 decoder.
#include "model/families/families.h"
#include "model/vision_encoder_decoder.h"
#include "model/vision_encoder_decoder_config.h"

namespace attn::families {

ModelFamily visionEncoderDecoder()
{
    ModelFamily f;
    f.modelTypes = { "vision-encoder-decoder" };
    f.capabilities = kCaption;
    f.readConfig = [](const ConfigFields& fields, ModelConfig& c) {
        // Both sub-configs are read with their own families' rules; the combined description keeps what the
        // registry already set from the outer config.
        ModelConfig combined = combinedConfig(parseVisionEncoderDecoderParts(fields.json(), fields.source()));
        combined.source = c.source;
        combined.modelType = c.modelType;
        combined.capabilities = c.capabilities;
        if (combined.architecture.empty()) combined.architecture = c.architecture;
        c = std::move(combined);
    };
    f.load = [](const ModelSource& s) -> std::shared_ptr<Model> { return loadVisionEncoderDecoder(s); };
    return f;
}

} // namespace attn::families
