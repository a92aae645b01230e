// SPDX-License-Identifier: MIT
#include "model/rnn_cells.h"

#include "core/error.h"
#include "model/layers.h"
#include "model/weight_reader.h"

#include <cmath>

namespace attn {
namespace {

float sigmoid(float x)
{
    return 1.0f / (1.0f + std::exp(-x));
}

Tensor row(const std::vector<float>& v)
{
    return Tensor({ 1, static_cast<int64_t>(v.size()) }, v);
}

} // namespace

RnnWeights readRnn(WeightReader& reader, const std::string& prefix, const std::string& suffix, RnnCell cell,
    int64_t inputSize, int64_t hiddenSize, int64_t layer)
{
    const int64_t G = (cell == RnnCell::Gru ? 3 : 4) * hiddenSize;
    const std::string l = "_l" + std::to_string(layer) + suffix;
    RnnWeights w;
    w.cell = cell;
    w.wIh = reader.take(prefix + "weight_ih" + l, { G, inputSize });
    w.wHh = reader.take(prefix + "weight_hh" + l, { G, hiddenSize });
    w.bIh = reader.take(prefix + "bias_ih" + l, { G });
    w.bHh = reader.take(prefix + "bias_hh" + l, { G });
    return w;
}

void rnnStep(const RnnWeights& w, const std::vector<float>& x, std::vector<float>& h, std::vector<float>& c)
{
    const int64_t H = w.hiddenSize();
    if (static_cast<int64_t>(x.size()) != w.inputSize() || static_cast<int64_t>(h.size()) != H)
        throw Error("rnnStep: input " + std::to_string(x.size()) + " / state " + std::to_string(h.size())
            + " do not fit the cell's " + std::to_string(w.inputSize()) + " / " + std::to_string(H));
    const Tensor gi = linear(row(x), w.wIh, &w.bIh), gh = linear(row(h), w.wHh, &w.bHh);
    const float *a = gi.data(), *b = gh.data();
    if (w.cell == RnnCell::Gru) {
        for (int64_t j = 0; j < H; ++j) {
            const float r = sigmoid(a[j] + b[j]);
            const float z = sigmoid(a[H + j] + b[H + j]);
            const float n = std::tanh(a[2 * H + j] + r * b[2 * H + j]);
            h[j] = (1.0f - z) * n + z * h[j];
        }
        return;
    }
    if (static_cast<int64_t>(c.size()) != H)
        throw Error("rnnStep: LSTM cell state of " + std::to_string(c.size()) + ", expected " + std::to_string(H));
    for (int64_t j = 0; j < H; ++j) {
        const float i = sigmoid(a[j] + b[j]);
        const float f = sigmoid(a[H + j] + b[H + j]);
        const float g = std::tanh(a[2 * H + j] + b[2 * H + j]);
        const float o = sigmoid(a[3 * H + j] + b[3 * H + j]);
        c[j] = f * c[j] + i * g;
        h[j] = o * std::tanh(c[j]);
    }
}

} // namespace attn
