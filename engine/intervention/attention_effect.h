// SPDX-License-Identifier: MIT
#pragma once
// Attention against effect ("attention is not explanation", made measurable): for one query, each key's attention
// weight next to what hiding that key does to the model's prediction, and how well the two rank the keys alike.
#include "core/tensor.h"
#include "model/model.h"

#include <cstdint>
#include <span>
#include <vector>

namespace attn {

/// Row `query` (keys 0 .. query) of an input. The prediction is the unmodified model's most probable next token at
/// `query` (lower id on ties); an effect is log p(prediction) unmodified minus log p(prediction) with key j hidden
/// (KeyMask: exactly zero attention, rows renormalised), leave-one-out, so > 0 means the key supported it.
struct AttentionEffect {
    int64_t query = 0;
    int64_t prediction = 0;
    double logProbability = 0.0; ///< log p(prediction) unmodified
    Tensor attention; ///< [layers, heads, query + 1]: every head's unmodified attention row
    Tensor meanAttention; ///< [query + 1]: the mean of those rows over layers and heads
    Tensor effect; ///< [query + 1]: key j hidden from every head of every layer
    Tensor spearman; ///< [layers, heads]: rank correlation of attention[l, h] with effect
    double meanSpearman = 0.0; ///< rank correlation of meanAttention with effect
    /// With perHead only: [layers, heads, query + 1], key j hidden from head (l, h) alone, and [layers, heads], the
    /// rank correlation of attention[l, h] with headEffect[l, h].
    Tensor headEffect;
    Tensor headSpearman;
};

/// Runs `tokens` up to `query` (later positions cannot change it) unmodified and once per key (per key and head
/// with perHead; those re-run only the layers from the head's), with `base`'s backend and layerDone. Throws Error
/// for a query outside the input or below 1 (one key has nothing to rank).
AttentionEffect attentionEffect(const DecoderModel& model, const std::vector<int64_t>& tokens, int64_t query,
    bool perHead, const ForwardOptions& base);

/// Spearman's rank correlation of two series of the same length (tied values share their mean rank): the Pearson
/// correlation of the ranks. NaN when either series is constant. Throws Error when the lengths differ or are < 2.
double spearmanCorrelation(std::span<const float> a, std::span<const float> b);

} // namespace attn
