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

/// What a family can do beyond showing its attention (bits of ModelConfig::capabilities).
enum Capability : uint32_t {
    kGenerate = 1u << 0, ///< causal generation (generate, the decode views)
    kEncode = 1u << 1, ///< bidirectional encoding (masked LM)
    kTranslate = 1u << 2, ///< text-to-text sequence to sequence
    kAlign = 1u << 3, ///< word alignment from cross-attention
    kClassify = 1u << 4, ///< image classification
    kCaption = 1u << 5, ///< image to text
};

/// The names of the bits set in `capabilities`, in the order above ("generate", "encode", ...).
std::vector<std::string> capabilityNames(uint32_t capabilities);

/// Where RoPE rotates: HF's rotate-half layout, or llama2.c / GPT-J adjacent pairs.
enum class RopeStyle { None, RotateHalf, Interleaved };

/// config.json's rope_scaling: how a family stretches the RoPE frequencies for long contexts (rope_scaling.h).
struct RopeScaling {
    /// Frequencies: a GGUF file's rope_freqs.weight (what convert_hf_to_gguf.py writes for Llama 3.1's bands), each
    /// pair's inv_freq divided by its factor.
    enum class Type { None, Linear, Dynamic, Llama3, LongRope, Frequencies, Yarn };
    Type type = Type::None;
    double factor = 1.0; ///< linear, dynamic, llama3, yarn
    double lowFreqFactor = 1.0; ///< llama3
    double highFreqFactor = 4.0; ///< llama3
    int64_t originalMaxPositions = 0; ///< llama3, longrope, yarn
    std::vector<double> shortFactor, longFactor; ///< longrope: one per rotary pair
    std::vector<double> frequencyFactors; ///< Frequencies: one divisor per rotary pair
    /// longrope's and yarn's cos/sin factor; 0: the type's default (longrope: sqrt(1 + ln(max / orig) / ln(orig));
    /// yarn: from factor, mscale and mscale_all_dim, see rope_scaling.h)
    double attentionFactor = 0.0;
    double betaFast = 32.0, betaSlow = 1.0; ///< yarn: the rotation counts that bound the blend of the frequencies
    double mscale = 0.0, mscaleAllDim = 0.0; ///< yarn (DeepSeek style); 0: unset
    bool truncate = true; ///< yarn: round the blend's bounds outward to whole pairs, as transformers' default
};

std::string ropeScalingName(RopeScaling::Type type);

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
    RopeScaling ropeScaling;
    double normEps = 1e-5;
    std::string activation;
    int64_t slidingWindow = 0; ///< 0 = none
    bool alternatingWindow = false; ///< gemma2: the window applies to even layers only (odd layers are global)
    bool parallelResidual = false; ///< gpt_neox / phi: x + attn(norm(x)) + mlp(norm'(x))
    bool postNorm = false; ///< opt do_layer_norm_before=false: x = norm(x + attn(x)), then norm'(x + mlp(x))
    int64_t positionOffset = 0; ///< opt: learned position rows start at this offset
    int64_t embeddingDim = 0; ///< opt: word_embed_proj_dim when it differs from hidden_size (project_in/out); else 0
    double clipQkv = 0.0; ///< olmo: q/k/v projection outputs clamped to [-clip, clip]; 0 = none
    double attnLogitSoftcap = 0.0; ///< gemma2: scores -> cap * tanh(scores / cap) before the mask; 0 = none
    double finalLogitSoftcap = 0.0; ///< gemma2: logits -> cap * tanh(logits / cap); 0 = none
    double queryPreAttnScalar = 0.0; ///< gemma2: scores scaled by its -1/2 power, not head_dim's; 0 = head_dim
    int64_t numExperts = 0; ///< sparse MoE (mixtral): experts per layer; 0 = a dense feed-forward
    int64_t expertsPerToken = 0; ///< sparse MoE: experts each token is routed to
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

    /// What the family can do (Capability bits), from the family that read this config.
    uint32_t capabilities = 0;

    /// The sliding window of decoder layer `layer` (0 = none).
    int64_t windowOfLayer(int64_t layer) const { return alternatingWindow && layer % 2 != 0 ? 0 : slidingWindow; }

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
