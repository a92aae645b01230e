// SPDX-License-Identifier: MIT
// classify MODEL (--image FILE | --pixel-values FILE.npy) [--top-k K]: "label probability" lines, best first.
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/vision_input.h"
#include "core/error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace attn::cli {

int runClassify(const std::vector<std::string>& words)
{
    const Args args(words, {});
    args.allowOnly({ "image", "pixel-values", "top-k" });
    const auto model = loadVisionModel(args.positional(0, "MODEL"));
    const int64_t topK = args.getInt("top-k", 5);
    if (topK < 1) throw UsageError("--top-k must be at least 1");
    const Tensor pixels = pixelInput(args, *model);
    ForwardOptions options;
    options.wantAttention = false;
    const StepResult r = model->classify(pixels, options);
    if (r.logits.empty()) throw Error(args.positional(0, "MODEL"), "the model has no classifier head");
    // Softmax over every output in double, max-subtracted.
    const std::vector<float>& logits = r.logits.storage();
    const double top = *std::max_element(logits.begin(), logits.end());
    std::vector<double> prob(logits.size());
    double sum = 0;
    for (size_t i = 0; i < logits.size(); ++i)
        sum += prob[i] = std::exp(static_cast<double>(logits[i]) - top);
    std::vector<size_t> order(logits.size());
    std::iota(order.begin(), order.end(), size_t { 0 });
    const size_t k = std::min(order.size(), static_cast<size_t>(topK));
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
        [&](size_t a, size_t b) { return prob[a] != prob[b] ? prob[a] > prob[b] : a < b; });
    for (size_t i = 0; i < k; ++i)
        std::printf("%s %.6f\n", model->label(static_cast<int64_t>(order[i])).c_str(), prob[order[i]] / sum);
    return 0;
}

} // namespace attn::cli
