// SPDX-License-Identifier: MIT
#include "intervention/attention_effect.h"

#include "core/error.h"
#include "intervention/layer_reuse.h"
#include "intervention/output_diff.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace attn {
namespace {

/// 1-based ranks of `x`, ties sharing their mean rank.
std::vector<double> ranks(std::span<const float> x)
{
    std::vector<size_t> order(x.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a] < x[b]; });
    std::vector<double> r(x.size());
    for (size_t i = 0; i < order.size();) {
        size_t j = i;
        while (j + 1 < order.size() && x[order[j + 1]] == x[order[i]])
            ++j;
        const double mean = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
        for (size_t k = i; k <= j; ++k)
            r[order[k]] = mean;
        i = j + 1;
    }
    return r;
}

/// log p(token) in the last row of `logits`.
double lastLogProb(const Tensor& logits, int64_t token)
{
    Tensor last({ 1, logits.dim(1) });
    std::copy_n(logits.data() + (logits.dim(0) - 1) * logits.dim(1), logits.dim(1), last.data());
    return logSoftmaxRows(last)[0][static_cast<size_t>(token)];
}

} // namespace

double spearmanCorrelation(std::span<const float> a, std::span<const float> b)
{
    if (a.size() != b.size() || a.size() < 2)
        throw Error("rank correlation: needs two series of the same length >= 2 (got " + std::to_string(a.size())
            + " and " + std::to_string(b.size()) + ")");
    const std::vector<double> ra = ranks(a), rb = ranks(b);
    const double mean = (static_cast<double>(a.size()) + 1.0) / 2.0;
    double sab = 0.0, saa = 0.0, sbb = 0.0;
    for (size_t i = 0; i < ra.size(); ++i) {
        sab += (ra[i] - mean) * (rb[i] - mean);
        saa += (ra[i] - mean) * (ra[i] - mean);
        sbb += (rb[i] - mean) * (rb[i] - mean);
    }
    if (saa == 0.0 || sbb == 0.0) return std::numeric_limits<double>::quiet_NaN();
    return sab / std::sqrt(saa * sbb);
}

AttentionEffect attentionEffect(const DecoderModel& model, const std::vector<int64_t>& tokens, int64_t query,
    bool perHead, const ForwardOptions& base)
{
    if (query < 1 || query >= static_cast<int64_t>(tokens.size()))
        throw Error("attention effect: query " + std::to_string(query) + " is outside positions 1 .. "
            + std::to_string(static_cast<int64_t>(tokens.size()) - 1) + " of the input");
    const ModelConfig& c = model.config();
    const int64_t keys = query + 1, L = c.numLayers, H = c.numHeads;
    ForwardOptions options = base;
    options.wantAttention = true;
    options.lastLogitsOnly = true;
    const ReusableRun run(model, std::vector<int64_t>(tokens.begin(), tokens.begin() + keys), options);

    AttentionEffect e;
    e.query = query;
    const Tensor& logits = run.clean().logits;
    const float* row = logits.data() + (logits.dim(0) - 1) * logits.dim(1);
    e.prediction = std::max_element(row, row + logits.dim(1)) - row;
    e.logProbability = lastLogProb(logits, e.prediction);
    e.attention = Tensor({ L, H, keys });
    e.meanAttention = Tensor({ keys });
    for (int64_t l = 0; l < L; ++l)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t j = 0; j < keys; ++j) {
                const float a = run.clean().attention[static_cast<size_t>(l)].data()[(h * keys + query) * keys + j];
                e.attention.data()[(l * H + h) * keys + j] = a;
                e.meanAttention.data()[j] += a / static_cast<float>(L * H);
            }

    // Reruns need only the logits.
    const auto drop = [&](const std::vector<HeadRef>& heads, int64_t key) {
        Intervention hide;
        hide.keyMasks.push_back({ { key }, heads });
        return static_cast<float>(e.logProbability - lastLogProb(run.rerun(hide).logits, e.prediction));
    };
    e.effect = Tensor({ keys });
    for (int64_t j = 0; j < keys; ++j)
        e.effect.data()[j] = drop({}, j);
    const auto spans = [&](const Tensor& t, int64_t l, int64_t h) {
        return std::span<const float>(t.data() + (l * H + h) * keys, static_cast<size_t>(keys));
    };
    const std::span<const float> effect(e.effect.data(), static_cast<size_t>(keys));
    e.spearman = Tensor({ L, H });
    for (int64_t l = 0; l < L; ++l)
        for (int64_t h = 0; h < H; ++h)
            e.spearman.data()[l * H + h] = static_cast<float>(spearmanCorrelation(spans(e.attention, l, h), effect));
    e.meanSpearman = spearmanCorrelation({ e.meanAttention.data(), static_cast<size_t>(keys) }, effect);
    if (!perHead) return e;
    e.headEffect = Tensor({ L, H, keys });
    e.headSpearman = Tensor({ L, H });
    for (int64_t l = 0; l < L; ++l)
        for (int64_t h = 0; h < H; ++h) {
            for (int64_t j = 0; j < keys; ++j)
                e.headEffect.data()[(l * H + h) * keys + j] = drop({ { l, h } }, j);
            e.headSpearman.data()[l * H + h]
                = static_cast<float>(spearmanCorrelation(spans(e.attention, l, h), spans(e.headEffect, l, h)));
        }
    return e;
}

} // namespace attn
