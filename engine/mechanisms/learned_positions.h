// SPDX-License-Identifier: MIT
#pragma once
// The learned absolute position table of a model that has one (GPT-2 wpe, BERT and ViT/DeiT position_embeddings), and
// the cosine similarity of its rows: what the Positions page shows next to the fixed encodings.
#include "mechanisms/head_inputs.h"

namespace attn {

struct ModelConfig;
struct ModelSource;

/// Whether models described by `config` keep a learned position table (nothing is read).
bool hasLearnedPositionTable(const ModelConfig& config);

/// Rows 0 .. count - 1 of the table [count, hidden], read from the model's safetensors weights; empty for a model
/// without one (rotary, relative or sinusoidal positions, GGUF files). Throws Error naming the file when the table is
/// malformed or shorter than `count`. An image model's table is read at its training image's token count only (empty
/// for other sizes, which interpolate it).
Mat learnedPositionTable(const ModelSource& source, int64_t count);

/// cos(angle) between every pair of rows [n, n] (0 where a row is zero).
Mat cosineSimilarity(const Mat& rows);

} // namespace attn
