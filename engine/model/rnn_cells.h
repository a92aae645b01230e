// SPDX-License-Identifier: MIT
#pragma once
// Single-layer GRU and LSTM steps with PyTorch's weight layout and gate order (GRU r, z, n; LSTM i, f, g, o).
#include "core/tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

class WeightReader;

enum class RnnCell { Gru, Lstm };

struct RnnWeights {
    RnnCell cell = RnnCell::Gru;
    Tensor wIh, wHh, bIh, bHh; ///< [gates * H, in], [gates * H, H], [gates * H] x2
    int64_t hiddenSize() const { return wHh.dim(1); }
    int64_t inputSize() const { return wIh.dim(1); }
};

/// Reads `prefix`weight_ih_l<layer>`suffix` etc. (nn.GRU / nn.LSTM names; suffix "_reverse" for the backward
/// direction).
RnnWeights readRnn(WeightReader& reader, const std::string& prefix, const std::string& suffix, RnnCell cell,
    int64_t inputSize, int64_t hiddenSize, int64_t layer = 0);

/// One step: h (and c for LSTM) [H] are updated in place from input x [in].
void rnnStep(const RnnWeights& w, const std::vector<float>& x, std::vector<float>& h, std::vector<float>& c);

} // namespace attn
