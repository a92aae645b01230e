// SPDX-License-Identifier: MIT
#include "vision/vision_result.h"

#include "analysis/rollout.h"
#include "core/error.h"
#include "vision/image_conversion.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attn::ui {

namespace {
constexpr size_t kTopClasses = 5;

std::vector<ClassScore> topClasses(const VisionModel& model, const Tensor& logits)
{
    if (logits.empty()) return {};
    const int64_t n = logits.dim(1);
    const float* row = logits.data();
    const double maxLogit = *std::max_element(row, row + n);
    std::vector<double> p(static_cast<size_t>(n));
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i)
        sum += p[static_cast<size_t>(i)] = std::exp(row[i] - maxLogit);
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    const size_t k = std::min(kTopClasses, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
        [&](int64_t a, int64_t b) { return p[static_cast<size_t>(a)] > p[static_cast<size_t>(b)]; });
    std::vector<ClassScore> out;
    for (size_t i = 0; i < k; ++i)
        out.push_back({ model.label(order[i]), p[static_cast<size_t>(order[i])] / sum });
    return out;
}
} // namespace

std::vector<float> VisionResult::patchPart(const float* tokenValues) const
{
    return { tokenValues + prefixTokens, tokenValues + prefixTokens + grid.patches() };
}

std::vector<float> VisionResult::patchAttention(int64_t layer, int64_t head, int64_t query) const
{
    const int64_t t = numTokens();
    if (layer < 0 || layer >= numLayers() || head >= numHeads() || query < 0 || query >= t)
        throw Error("vision view", "layer, head or token outside the result");
    if (head >= 0) return patchPart(attention->rows(layer, head, query, query + 1)->data());
    std::vector<float> mean(static_cast<size_t>(t), 0.0f);
    for (int64_t h = 0; h < numHeads(); ++h) {
        const float* row = attention->rows(layer, h, query, query + 1)->data();
        for (int64_t k = 0; k < t; ++k)
            mean[static_cast<size_t>(k)] += row[k] / static_cast<float>(numHeads());
    }
    return patchPart(mean.data());
}

std::vector<Tensor> VisionResult::layerAttention() const
{
    const int64_t t = numTokens();
    std::vector<Tensor> layers;
    for (int64_t l = 0; l < numLayers(); ++l) {
        Tensor& layer = layers.emplace_back(Shape { numHeads(), t, t });
        for (int64_t h = 0; h < numHeads(); ++h)
            attention->forEachRowBlock(l, h, [&](int64_t q0, int64_t rows, const float* probs) {
                std::copy_n(probs, rows * t, layer.data() + (h * t + q0) * t);
            });
    }
    return layers;
}

std::vector<float> VisionResult::rowPatches(const Tensor& matrix, int64_t query) const
{
    const int64_t t = numTokens();
    if (query < 0 || query >= t) throw Error("vision view", "token outside the result");
    if (matrix.rank() != 2 || matrix.dim(0) != t || matrix.dim(1) != t)
        throw Error("vision view", "expected a [" + std::to_string(t) + ", " + std::to_string(t) + "] token matrix");
    return patchPart(matrix.data() + query * t);
}

namespace {
VisionResultPtr classify(
    const VisionModel& model, const Tensor& pixels, QImage image, const std::string& source, Backend* backend)
{
    auto result = std::make_shared<VisionResult>();
    result->image = std::move(image);
    result->source = source;
    result->pixels = std::make_shared<const Tensor>(pixels);
    ForwardOptions options;
    options.wantAttention = false; // derived from the queries and keys instead
    options.wantQueryKeys = true;
    options.backend = backend;
    StepResult step = model.classify(pixels, options);
    result->grid = model.patchGrid(pixels.dim(1), pixels.dim(2));
    result->prefixTokens = model.prefixTokens();
    result->tokenNames = model.tokenNames(pixels.dim(1), pixels.dim(2));
    // ViT attends without a mask, at the default 1/sqrt(headDim) scale: the source's default options.
    result->attention = std::make_shared<const AttentionSource>(
        std::make_shared<const OwnedQueryKeys>(step.queries, step.keys), AttentionOptions {});
    result->rollout = attentionRollout(result->layerAttention(), RolloutOptions {});
    result->topClasses = topClasses(model, step.logits);
    return result;
}
} // namespace

VisionResultPtr classifyImage(
    const VisionModel& model, const QImage& image, const std::string& source, Backend* backend)
{
    return classify(model, model.preprocess(imageBufferFromQImage(image)), image, source, backend);
}

VisionResultPtr classifyPixels(
    const VisionModel& model, const Tensor& pixels, const std::string& source, Backend* backend)
{
    return classify(model, pixels, imageFromPixelValues(pixels, model.preprocessConfig()), source, backend);
}

std::vector<float> flowPatches(const VisionResult& result, int64_t query, const RolloutOptions& options)
{
    const Tensor flow = attentionFlow(result.layerAttention(), query, options);
    return result.patchPart(flow.data());
}

} // namespace attn::ui
