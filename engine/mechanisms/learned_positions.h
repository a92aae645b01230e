// SPDX-License-Identifier: MIT
#pragma once
// The learned position parameters of a model that has them (GPT-2 wpe, BERT and ViT/DeiT position_embeddings, BART's
// embed_positions, T5's relative position bias per bucket and head), and the cosine similarity of a table's rows: what
// the Positions page shows next to the fixed encodings.
#include "mechanisms/head_inputs.h"
#include "mechanisms/seq2seq_head_inputs.h"

namespace attn {

struct ModelConfig;
struct ModelSource;

/// Whether models described by `config` keep learned position parameters: a table or T5's relative bias (nothing is
/// read).
bool hasLearnedPositions(const ModelConfig& config);

/// Rows 0 .. count - 1 of the table [count, hidden], read from the model's safetensors weights; empty for a model
/// without one (rotary, relative or sinusoidal positions, GGUF files). Throws Error naming the file when the table is
/// malformed or shorter than `count`. An image model's table is read at its training image's token count only (empty
/// for other sizes, which interpolate it). BART: the encoder's table for `block` Encoder, else the decoder's (a cross
/// head's queries are decoder positions); position p is row p + 2 (BartLearnedPositionalEmbedding's offset 2).
Mat learnedPositionTable(const ModelSource& source, int64_t count, AttentionBlock block = AttentionBlock::Encoder);

/// T5's learned relative position bias [buckets, heads] of the encoder's stack (`block` Encoder) or the decoder's
/// (Decoder; cross-attention has none: empty), as stored in block 0 and shared by every layer; empty for other
/// models. Throws Error naming the file when the table's shape is not [relative_attention_num_buckets, heads].
Mat t5RelativeBiasTable(const ModelSource& source, AttentionBlock block);

/// cos(angle) between every pair of rows [n, n] (0 where a row is zero).
Mat cosineSimilarity(const Mat& rows);

} // namespace attn
