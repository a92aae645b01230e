// SPDX-License-Identifier: MIT
#include "intervention/logit_lens.h"

#include "core/error.h"

#include <cmath>

namespace attn {

Tensor lensLogits(const ReusableRun& run, const Tensor& residual, const RerunHooks& hooks)
{
    const int64_t last = static_cast<int64_t>(run.clean().hiddenStates.size()) - 2;
    if (last < 0) throw Error("logit lens: the unmodified pass kept no hidden states");
    const Tensor& shape = run.clean().hiddenStates.front();
    if (residual.shape() != shape.shape())
        throw Error("logit lens: residual " + shapeToString(residual.shape()) + " is not the model's "
            + shapeToString(shape.shape()));
    Intervention readout;
    readout.editsFromLayer = last;
    readout.editResidual = [&residual, last](int64_t layer, Tensor& x) {
        if (layer == last) x = residual;
    };
    return run.rerun(readout, false, hooks).logits;
}

LogitLens logitLens(const ReusableRun& run, int64_t topK, const RerunHooks& hooks)
{
    const StepResult& clean = run.clean();
    const int64_t layers = static_cast<int64_t>(clean.hiddenStates.size()) - 1;
    if (layers < 1) throw Error("logit lens: the unmodified pass kept no hidden states");
    const int64_t n = clean.logits.dim(0);
    LogitLens lens;
    for (const auto& row : topTokens(clean.logits, 1))
        lens.chosen.push_back(row.front().id);
    lens.chosenProbability = Tensor({ layers + 1, n });
    const auto add = [&](int64_t layer, const Tensor& logits) {
        lens.top.push_back(topTokens(logits, topK));
        const auto logp = logSoftmaxRows(logits);
        for (int64_t i = 0; i < n; ++i)
            lens.chosenProbability.data()[layer * n + i] = static_cast<float>(
                std::exp(logp[static_cast<size_t>(i)][static_cast<size_t>(lens.chosen[static_cast<size_t>(i)])]));
    };
    // hiddenStates[l] is the residual after l layers for l < L; the last entry has the final norm applied already,
    // so the model's own logits stand for layer L.
    for (int64_t l = 0; l < layers; ++l)
        add(l, lensLogits(run, clean.hiddenStates[static_cast<size_t>(l)], hooks));
    add(layers, clean.logits);
    return lens;
}

} // namespace attn
