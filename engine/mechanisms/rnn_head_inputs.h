// SPDX-License-Identifier: MIT
#pragma once
// The cross-attention of an RNN seq2seq model (Bahdanau / Luong, or the PyTorch tutorial's location attention) as a
// head the mechanisms run on: the decoder's query state at every greedy step against the encoder outputs, with the
// model's trained score parameters.
#include "mechanisms/head_inputs.h"

#include <cstdint>
#include <vector>

namespace attn {

class RnnSeq2SeqModel;

struct RnnHead {
    HeadInputs inputs;
    std::vector<int64_t> generated; ///< the greedy target ids, one per query row (EOS included when produced)
    Mat modelAttention; ///< [steps, keys] the alignment weights the model itself reported at each step
};

/// Greedy-decodes `source` (ids, EOS included) and reads every step's query: Bahdanau the previous top-layer state
/// s_{t-1}, Luong the new top-layer state h_t, the tutorial [embedding of the fed token; h_{t-1}]. Keys and values
/// are the encoder outputs (the tutorial's zero-padded to its fixed positions, which it attends). Throws Error as
/// RnnSeq2SeqModel::encode.
RnnHead rnnHeadInputs(const RnnSeq2SeqModel& model, const std::vector<int64_t>& source);

} // namespace attn
