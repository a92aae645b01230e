// SPDX-License-Identifier: MIT
#pragma once
// The heads of an encoder-decoder transformer (MarianMT, BART, T5, Whisper) and of an image captioner (its ViT encoder
// and GPT-2 decoder): the queries, keys and values of encoder self-attention, decoder self-attention or
// cross-attention, from one encoding of the source and one teacher-forced pass of the decoder tokens.
#include "mechanisms/head_inputs.h"
#include "model/seq2seq_model.h"

#include <string>
#include <vector>

namespace attn {

enum class AttentionBlock { Encoder, Decoder, Cross };

/// "encoder", "decoder" or "cross"; throws Error naming the three for anything else.
AttentionBlock parseAttentionBlock(const std::string& name);
std::string attentionBlockName(AttentionBlock block);

struct Seq2SeqHeads {
    std::vector<HeadInputs> layer; ///< every query head of the requested layer of the block
    std::vector<Tensor> attention; ///< the model's own probabilities of every layer of the block [heads, rows, keys]
    std::vector<int64_t> target; ///< the decoder tokens that ran (the start token when none were given)
};

/// Encodes `source` and runs `target` (the decoder start token when empty) teacher-forced on the CPU core, then reads
/// `layer` of `block`. Encoder and cross heads see every key (one source, no padding), decoder heads are causal; a T5
/// head's relative position bias is its additive score term (HeadInputs::bias) and its scale is 1, as the model runs
/// it. Throws Error for a layer outside the block and for a model that is neither a transformer encoder-decoder nor
/// an image captioner.
Seq2SeqHeads seq2seqHeads(const EncoderDecoderModel& model, const EncoderInput& source, std::vector<int64_t> target,
    AttentionBlock block, int64_t layer);

} // namespace attn
