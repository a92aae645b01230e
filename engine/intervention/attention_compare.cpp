// SPDX-License-Identifier: MIT
#include "intervention/attention_compare.h"

#include "core/error.h"

#include <algorithm>
#include <cmath>

namespace attn {

Tensor headMean(const Tensor& layer)
{
    if (layer.rank() != 3 || layer.dim(0) < 1)
        throw Error("head mean: attention " + shapeToString(layer.shape()) + " is not [heads, queries, keys]");
    const int64_t heads = layer.dim(0), cells = layer.dim(1) * layer.dim(2);
    Tensor mean({ layer.dim(1), layer.dim(2) });
    for (int64_t c = 0; c < cells; ++c) {
        double sum = 0.0;
        for (int64_t h = 0; h < heads; ++h)
            sum += layer.data()[h * cells + c];
        mean.data()[c] = static_cast<float>(sum / static_cast<double>(heads));
    }
    return mean;
}

std::vector<double> jsDivergencePerRow(const float* p, const float* q, int64_t rows, int64_t keys)
{
    std::vector<double> js(static_cast<size_t>(rows));
    // p log(p / m), with 0 log 0 = 0.
    const auto term = [](double a, double m) { return a > 0.0 ? a * std::log(a / m) : 0.0; };
    for (int64_t i = 0; i < rows; ++i) {
        double sum = 0.0;
        for (int64_t j = 0; j < keys; ++j) {
            const double a = p[i * keys + j], b = q[i * keys + j], m = 0.5 * (a + b);
            sum += 0.5 * (term(a, m) + term(b, m));
        }
        js[static_cast<size_t>(i)] = std::max(0.0, sum);
    }
    return js;
}

double log2Ratio(double b, double a)
{
    return std::log2((b + kRatioFloor) / (a + kRatioFloor));
}

} // namespace attn
