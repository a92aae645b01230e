// SPDX-License-Identifier: MIT
#pragma once
// HF VisionEncoderDecoderModel's config.json: one file holding an `encoder` (vit, deit) and a `decoder` (gpt2 with
// add_cross_attention) sub-config, each a complete config of its own family.
#include "model/model_config.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace attn {

struct VisionEncoderDecoderParts {
    ModelConfig encoder; ///< the image encoder's own config (kind Vision)
    ModelConfig decoder; ///< the text decoder's own config (kind Decoder)
    int64_t decoderStartTokenId = -1; ///< the top level's, else the decoder's bos_token_id
    int64_t eosTokenId = -1;
    int64_t padTokenId = -1;
    std::string source;
    std::string architecture;
};

/// Parses both sub-configs with their families' rules. Throws Error naming `source` for a missing sub-config, an
/// encoder that is not vit / deit, a decoder that is not gpt2 with add_cross_attention, or a
/// cross_attention_hidden_size other than the decoder's width (GPT-2's cross-attention reads states of its own width).
VisionEncoderDecoderParts parseVisionEncoderDecoderParts(const nlohmann::json& config, const std::string& source);
/// Same, from the config file.
VisionEncoderDecoderParts readVisionEncoderDecoderParts(const std::string& configPath);

/// The one description the rest of the engine sees (kind ImageToText): the encoder's layers, heads, widths and image
/// geometry; the decoder's layers, heads, vocabulary and positions (numDecoder*, vocabSize, maxTargetPositions).
ModelConfig combinedConfig(const VisionEncoderDecoderParts& parts);

} // namespace attn
