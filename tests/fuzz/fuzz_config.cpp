// SPDX-License-Identifier: MIT
// config.json of every family (the parser dispatches on model_type) and a ViT's preprocessor_config.json.
#include "fuzz_target.h"
#include "model/model_config.h"
#include "vision/preprocess.h"

#include <string>

AS_FUZZ_TARGET(config)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    const attn::ModelConfig c = attn::parseHfConfigText(text, "config.json");
    c.toJson();
    if (c.kind == attn::ModelKind::Vision && (c.numChannels == 1 || c.numChannels == 3))
        attn::parsePreprocessConfigText(text, "preprocessor_config.json", c.numChannels, c.imageSize);
}
