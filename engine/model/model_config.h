// SPDX-License-Identifier: MIT
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace attn {

/// How a family is wired: what the session and the views can ask of it.
/// ImageToText: an image encoder with a text decoder cross-attending to it (HF VisionEncoderDecoderModel).
enum class ModelKind { Decoder, Encoder, EncoderDecoder, Vision, Speech, ImageToText };

std::string modelKindName(ModelKind kind);

/// Where RoPE rotates: HF's rotate-half layout, or llama2.c / GPT-J adjacent pairs.
enum class RopeStyle { None, RotateHalf, Interleaved };

/// The typed description of a model, parsed from config.json (or a llama2.c header).
/// Fields a family does not use keep their defaults.
struct ModelConfig {
    std::string source; ///< the file it came from
    std::string modelType; ///< gpt2, bert, llama, mistral, qwen2, vit, marian, bart, t5, whisper, llama2c,
                           ///< vision-encoder-decoder
    std::string architecture; ///< first entry of "architectures", or the format name
    ModelKind kind = ModelKind::Decoder;

    int64_t numLayers = 0; ///< encoder layers for encoder-decoders
    int64_t numDecoderLayers = 0; ///< encoder-decoders only
    int64_t numHeads = 0;
    int64_t numDecoderHeads = 0; ///< encoder-decoders only
    int64_t numKvHeads = 0; ///< == numHeads without GQA/MQA
    int64_t hiddenSize = 0;
    int64_t headDim = 0;
    int64_t intermediateSize = 0;
    int64_t decoderIntermediateSize = 0;
    int64_t vocabSize = 0;
    int64_t maxPositions = 0;
    int64_t maxTargetPositions = 0; ///< whisper decoder
    int64_t typeVocabSize = 0; ///< bert

    RopeStyle ropeStyle = RopeStyle::None;
    double ropeTheta = 10000.0;
    double partialRotaryFactor = 1.0;
    double normEps = 1e-5;
    std::string activation;
    int64_t slidingWindow = 0; ///< 0 = none
    bool tieWordEmbeddings = false;
    bool attentionBias = false; ///< q/k/v projections carry biases (qwen2, vit)
    bool scaleEmbedding = false; ///< marian/bart/whisper: embeddings * sqrt(d_model)
    bool scaleAttention = true; ///< t5 does not scale scores

    int64_t relativeBuckets = 0; ///< t5
    int64_t relativeMaxDistance = 0; ///< t5
    bool gatedFeedForward = false; ///< t5 gated-gelu

    int64_t imageSize = 0; ///< vit
    int64_t patchSize = 0;
    int64_t numChannels = 0;
    int64_t numMelBins = 0; ///< whisper
    std::vector<std::string> labels; ///< id2label, by id

    int64_t bosTokenId = -1;
    int64_t eosTokenId = -1;
    int64_t padTokenId = -1;
    int64_t decoderStartTokenId = -1;

    /// JSON object describing the model, as printed by `attnscope-cli info`.
    std::string toJson(int indent = 2) const;
};

/// Model types the engine knows, for error messages.
const std::vector<std::string>& supportedModelTypes();

/// Parses an HF config.json. Throws Error naming the file for malformed JSON, unknown model_type
/// (listing the supported ones), missing required fields and contradictions (e.g. heads not dividing hidden size).
ModelConfig parseHfConfig(const std::string& path);
/// Same, from JSON text; `source` names it in errors.
ModelConfig parseHfConfigText(const std::string& text, const std::string& source);

} // namespace attn
