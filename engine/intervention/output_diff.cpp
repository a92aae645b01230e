// SPDX-License-Identifier: MIT
#include "intervention/output_diff.h"

#include "attention/attention.h"
#include "core/error.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attn {
namespace {

void expectLogits(const Tensor& logits, const char* what)
{
    if (logits.rank() != 2 || logits.dim(1) < 1)
        throw Error(std::string(what) + " logits " + shapeToString(logits.shape()) + " are not [positions, vocab]");
}

} // namespace

std::vector<std::vector<double>> logSoftmaxRows(const Tensor& logits)
{
    expectLogits(logits, "log-softmax:");
    const int64_t n = logits.dim(0), v = logits.dim(1);
    std::vector<std::vector<double>> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        const float* row = logits.data() + i * v;
        const double lse = logSumExp(row, v);
        std::vector<double>& r = out[static_cast<size_t>(i)];
        r.resize(static_cast<size_t>(v));
        for (int64_t j = 0; j < v; ++j)
            r[static_cast<size_t>(j)] = static_cast<double>(row[j]) - lse;
    }
    return out;
}

Tensor klPerRow(const Tensor& reference, const Tensor& changed)
{
    expectLogits(reference, "KL: reference");
    if (changed.shape() != reference.shape())
        throw Error("KL: logits " + shapeToString(changed.shape()) + " differ in shape from the reference's "
            + shapeToString(reference.shape()));
    const auto p = logSoftmaxRows(reference), q = logSoftmaxRows(changed);
    Tensor kl({ reference.dim(0) });
    for (size_t i = 0; i < p.size(); ++i) {
        double sum = 0.0;
        for (size_t j = 0; j < p[i].size(); ++j)
            if (std::isfinite(p[i][j])) sum += std::exp(p[i][j]) * (p[i][j] - q[i][j]);
        kl.data()[i] = static_cast<float>(std::max(0.0, sum));
    }
    return kl;
}

std::vector<std::vector<TopToken>> topTokens(const Tensor& logits, int64_t k)
{
    const auto logp = logSoftmaxRows(logits);
    const int64_t v = logits.dim(1), count = std::clamp<int64_t>(k, 0, v);
    std::vector<std::vector<TopToken>> out;
    std::vector<int64_t> order(static_cast<size_t>(v));
    for (const auto& row : logp) {
        std::iota(order.begin(), order.end(), 0);
        std::partial_sort(order.begin(), order.begin() + count, order.end(), [&](int64_t a, int64_t b) {
            const double x = row[static_cast<size_t>(a)], y = row[static_cast<size_t>(b)];
            return x > y || (x == y && a < b);
        });
        std::vector<TopToken>& top = out.emplace_back();
        for (int64_t r = 0; r < count; ++r) {
            const int64_t id = order[static_cast<size_t>(r)];
            top.push_back({ id, std::exp(row[static_cast<size_t>(id)]) });
        }
    }
    return out;
}

} // namespace attn
