// SPDX-License-Identifier: MIT
#pragma once
// One transformer encoder-decoder parameterised by what differs between MarianMT, BART, T5 and Whisper
// (norm placement and kind, positions, embedding scale, score scale, feed-forward form, LM head). The loaders
// (encdec_loaders.h) fill it from each family's tensor names. Built without an encoder stack it is the text half of an
// image-to-text model (GPT-2 with cross-attention, vision_encoder_decoder.h).
#include "model/layers.h"
#include "model/seq2seq_model.h"

#include <memory>
#include <string>
#include <vector>

namespace attn {

/// Projection weights [out, in] in HF Linear layout; an empty bias means none.
struct ProjectionWeights {
    Tensor qW, qB, kW, kB, vW, vB, oW, oB;
};

/// LayerNorm (weight + bias) or, with an empty bias, T5's RMS norm (weight only, no mean subtraction).
struct NormWeights {
    Tensor weight, bias;
    bool present() const { return !weight.empty(); }
};

/// fc2(act(fc1 x)) or, with gate set, T5's gated form wo(act(wi_0 x) * wi_1 x). Empty biases mean none.
struct FeedForwardWeights {
    Tensor inW, inB, gateW, outW, outB;
};

struct EncoderLayerWeights {
    NormWeights selfNorm, ffNorm;
    ProjectionWeights self;
    FeedForwardWeights ff;
};

struct DecoderLayerWeights {
    NormWeights selfNorm, crossNorm, ffNorm;
    ProjectionWeights self, cross;
    FeedForwardWeights ff;
};

enum class PositionKind {
    Table, ///< rows of `positions` (learned, stored sinusoids or computed sinusoids), offset by positionOffset
    RelativeBuckets, ///< T5: per-head score bias from `relativeBias` [buckets, heads]
};

struct StackWeights {
    Tensor tokenEmbedding; ///< [V, D]
    PositionKind positionKind = PositionKind::Table;
    Tensor positions; ///< [P, D] for Table (read by gatherRows: may be packed)
    int64_t positionOffset = 0; ///< BART's learned positions start at row 2
    Tensor relativeBias; ///< [buckets, heads] for RelativeBuckets
    NormWeights embeddingNorm; ///< BART layernorm_embedding
    NormWeights finalNorm; ///< T5 / Whisper stack norm
};

/// Whisper's convolutional front end: conv1 (k3, p1) + GELU, conv2 (k3, s2, p1) + GELU.
struct AudioFrontEndWeights {
    static constexpr int64_t kKernel = 3;
    /// Kernels stored [D, mel, 3] and [D, D, 3], flattened to the im2col matrices [D, mel * 3], [D, D * 3].
    Tensor conv1W, conv1B, conv2W, conv2B;
    bool present() const { return !conv1W.empty(); }
};

struct TransformerSeq2SeqWeights {
    bool preNorm = false; ///< T5 / Whisper norm before each sublayer; Marian / BART after the residual add
    float embeddingScale = 1.0f; ///< sqrt(d_model) with scale_embedding
    float attentionScale = 0.0f; ///< 0: 1 / sqrt(head_dim); T5 uses 1
    Activation activation = Activation::Gelu;
    StackWeights encoder, decoder;
    std::vector<EncoderLayerWeights> encoderLayers;
    std::vector<DecoderLayerWeights> decoderLayers;
    AudioFrontEndWeights audio;
    Tensor lmHead; ///< [V, D]
    float logitScale = 1.0f; ///< T5 with a tied head: d_model^-0.5 on the decoder output
    Tensor finalLogitsBias; ///< [V] or empty
    /// A decoder without an encoder stack (encoderLayers empty, no encoder embeddings) reads EncoderInput::states;
    /// when their width differs from the decoder's, this Linear (HF enc_to_dec_proj) maps them first.
    Tensor statesProjW, statesProjB; ///< [D, encoder width], [D]
};

/// The encoder-decoder transformer over one family's weights (made by makeTransformerSeq2Seq, which checks them).
class TransformerSeq2Seq final : public EncoderDecoderModel {
public:
    TransformerSeq2Seq(ModelConfig config, int64_t decoderHeadDim, TransformerSeq2SeqWeights weights);
    std::shared_ptr<const EncoderOutput> encode(
        const EncoderInput& input, const ForwardOptions& options) const override;
    Seq2SeqStepResult decode(const EncoderOutput& encoding, KvCache& cache, const std::vector<int64_t>& tokens,
        const ForwardOptions& options) const override;
    /// The weights as loaded (their storage: packed half or float32).
    const TransformerSeq2SeqWeights& weights() const { return m_w; }

private:
    /// Scaled token embeddings plus absolute positions first .. first + n - 1 (Table stacks).
    Tensor tokenEmbeddings(
        const StackWeights& stack, const std::vector<int64_t>& tokens, int64_t first, const std::string& what) const;
    /// States from another encoder, checked against the width the decoder's cross-attention (or projection) reads.
    Tensor givenStates(const Tensor& states) const;
    /// Whisper: features [mel, frames] -> two convolutions with GELU -> [frames / 2, D] + stored positions.
    Tensor audioEmbeddings(const EncoderInput& input) const;

    TransformerSeq2SeqWeights m_w;
};

std::shared_ptr<TransformerSeq2Seq> makeTransformerSeq2Seq(ModelConfig config, TransformerSeq2SeqWeights weights);

} // namespace attn
