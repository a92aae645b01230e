// SPDX-License-Identifier: MIT
#include "intervention/activation_patching.h"

#include "core/error.h"
#include "intervention/intervention.h"
#include "model/kv_cache.h"

#include <cstring>

namespace attn {
namespace {

/// Every layer's merged head outputs and residual stream of one run.
struct Activations {
    std::vector<Tensor> heads, residual;
};

class Patcher {
public:
    Patcher(const DecoderModel& model, const PatchingSetup& setup, const ForwardOptions& base)
        : m_model(model)
        , m_setup(setup)
        , m_options(base)
    {
        m_options.wantAttention = false;
        m_options.wantHiddenStates = false;
        m_options.intervention = nullptr;
    }

    /// LD of a run of `tokens` under `intervention` (null: none).
    double difference(const std::vector<int64_t>& tokens, const Intervention* intervention) const
    {
        ForwardOptions options = m_options;
        options.intervention = intervention;
        KvCache cache = m_model.newCache();
        const StepResult r = m_model.forward(cache, tokens, options);
        const int64_t v = r.logits.dim(1);
        const float* last = r.logits.data() + (r.logits.dim(0) - 1) * v;
        return static_cast<double>(last[m_setup.answer]) - static_cast<double>(last[m_setup.wrong]);
    }

    /// The clean run's activations, recorded by edits that change nothing.
    Activations record(double* cleanDifference) const
    {
        Activations a;
        const auto layers = static_cast<size_t>(m_model.config().numLayers);
        a.heads.resize(layers);
        a.residual.resize(layers);
        Intervention recorder;
        recorder.editHeads = [&](int64_t l, Tensor& t) { a.heads[static_cast<size_t>(l)] = t; };
        recorder.editResidual = [&](int64_t l, Tensor& t) { a.residual[static_cast<size_t>(l)] = t; };
        *cleanDifference = difference(m_setup.clean, &recorder);
        return a;
    }

private:
    const DecoderModel& m_model;
    const PatchingSetup& m_setup;
    ForwardOptions m_options;
};

/// Copies columns [c0, c1) of every row (rows [r0, r1)) from `from` into `to`, both [n, width].
void copyBlock(const Tensor& from, Tensor& to, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
{
    const int64_t width = to.dim(1);
    for (int64_t r = r0; r < r1; ++r)
        std::memcpy(to.data() + r * width + c0, from.data() + r * width + c0, sizeof(float) * (c1 - c0));
}

} // namespace

PatchingResult activationPatching(const DecoderModel& model, const PatchingSetup& setup, const ForwardOptions& base)
{
    const ModelConfig& c = model.config();
    if (setup.clean.empty() || setup.clean.size() != setup.corrupted.size())
        throw Error("patching: the clean and corrupted prompts must be non-empty and of the same length (got "
            + std::to_string(setup.clean.size()) + " and " + std::to_string(setup.corrupted.size()) + " tokens)");
    for (const int64_t t : { setup.answer, setup.wrong })
        if (t < 0 || t >= c.vocabSize)
            throw Error("patching: answer token " + std::to_string(t) + " is outside the vocabulary of "
                + std::to_string(c.vocabSize));
    const Patcher patcher(model, setup, base);
    PatchingResult result;
    const Activations clean = patcher.record(&result.cleanDifference);
    result.corruptedDifference = patcher.difference(setup.corrupted, nullptr);
    const double span = result.cleanDifference - result.corruptedDifference;
    if (span == 0.0)
        throw Error("patching: the clean and corrupted prompts give the same logit difference, nothing to restore");
    const auto share
        = [&](double patched) { return static_cast<float>((patched - result.corruptedDifference) / span); };

    const int64_t n = static_cast<int64_t>(setup.clean.size()), dv = c.headDim;
    result.heads = Tensor({ c.numLayers, c.numHeads });
    for (int64_t l = 0; l < c.numLayers; ++l)
        for (int64_t h = 0; h < c.numHeads; ++h) {
            Intervention patch;
            patch.editHeads = [&](int64_t layer, Tensor& t) {
                if (layer == l) copyBlock(clean.heads[static_cast<size_t>(l)], t, 0, n, h * dv, (h + 1) * dv);
            };
            result.heads.data()[l * c.numHeads + h] = share(patcher.difference(setup.corrupted, &patch));
        }
    result.residual = Tensor({ c.numLayers, n });
    for (int64_t l = 0; l < c.numLayers; ++l)
        for (int64_t p = 0; p < n; ++p) {
            Intervention patch;
            patch.editResidual = [&](int64_t layer, Tensor& t) {
                if (layer == l) copyBlock(clean.residual[static_cast<size_t>(l)], t, p, p + 1, 0, t.dim(1));
            };
            result.residual.data()[l * n + p] = share(patcher.difference(setup.corrupted, &patch));
        }
    return result;
}

} // namespace attn
