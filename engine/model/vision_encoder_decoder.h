// SPDX-License-Identifier: MIT
#pragma once
// Image captioning (HF VisionEncoderDecoderModel): a ViT / DeiT encoder whose final states a GPT-2 decoder reads
// through cross-attention. The encoder is the vision family's model, the decoder the encoder-decoder transformer's
// decoder half; this class only joins them, so every op runs on the stream of the backend in use. A head mask has the
// rows of every encoder-decoder (Seq2SeqHeadRows: the ViT's layers, then the decoder's self- and cross-attention
// layers), with HF head_mask semantics in each; encode() hands the first rows to the ViT, decode() the others to the
// decoder.
#include "model/model_source.h"
#include "model/seq2seq_model.h"
#include "model/vision_model.h"

#include <memory>

namespace attn {

class VisionEncoderDecoderModel final : public EncoderDecoderModel {
public:
    VisionEncoderDecoderModel(ModelConfig config, std::shared_ptr<const VisionModel> encoder,
        std::shared_ptr<const EncoderDecoderModel> decoder);

    /// input.pixels [channels, H, W] as imageEncoder().preprocess() makes them (tokens and features must be empty).
    /// The output's attention and hiddenStates are the encoder's as classify() reports them; hidden is its final
    /// sequence after the final layernorm [T, D] (HF encoder_last_hidden_state), which cross-attention reads
    /// (through enc_to_dec_proj when the widths differ). S = T = prefix tokens + patches.
    std::shared_ptr<const EncoderOutput> encode(
        const EncoderInput& input, const ForwardOptions& options) const override;
    Seq2SeqStepResult decode(const EncoderOutput& encoding, KvCache& cache, const std::vector<int64_t>& tokens,
        const ForwardOptions& options) const override;

    /// The image side: preprocessing, patch grid, token names.
    const VisionModel& imageEncoder() const { return *m_encoder; }
    /// The text side: the decoder half of the encoder-decoder transformer, with cross-attention.
    const EncoderDecoderModel& textDecoder() const { return *m_decoder; }

private:
    std::shared_ptr<const VisionModel> m_encoder;
    std::shared_ptr<const EncoderDecoderModel> m_decoder;
};

/// A VisionEncoderDecoderModel folder: config.json with `encoder` / `decoder` sub-configs, one safetensors file with
/// encoder.* (ViTModel / DeiTModel) and decoder.* (GPT2LMHeadModel with cross-attention) tensors, enc_to_dec_proj when
/// the widths differ, preprocessor_config.json. Throws Error naming the file for anything else.
std::shared_ptr<VisionEncoderDecoderModel> loadVisionEncoderDecoder(const ModelSource& source);

} // namespace attn
