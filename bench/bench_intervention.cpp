// SPDX-License-Identifier: MIT
// Interventions on a 512-token input through the GPT-2-small-shaped model of random_gpt2.h, on the CPU: one head
// ablated and the input re-run in full or from the head's layer (ReusableRun keeps the unmodified pass), against one
// unmodified forward, and head importance for all 144 heads (see bench/README.md).
#include "analysis/head_importance.h"
#include "intervention/head_ablation.h"
#include "intervention/layer_reuse.h"
#include "model/kv_cache.h"
#include "random_gpt2.h"

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

namespace {

using namespace bench;

constexpr int64_t kTokens = 512;

/// The model after one forward of the benchmarks' size, so that no benchmark pays for the first reads of the freshly
/// written weight file or for the first page faults of the forward's buffers (3 to 4 times a warm forward here).
const attn::DecoderModel& model()
{
    static const attn::DecoderModel& warm = []() -> const attn::DecoderModel& {
        const auto& m = dynamic_cast<const attn::DecoderModel&>(*gpt2Small());
        attn::KvCache cache = m.newCache();
        attn::ForwardOptions options;
        options.wantAttention = false;
        m.forward(cache, randomTokens(kTokens), options);
        return m;
    }();
    return warm;
}

attn::ForwardOptions logitsOnly()
{
    attn::ForwardOptions options;
    options.wantAttention = false;
    return options;
}

/// The unmodified forward the others are measured against.
void forward(benchmark::State& state)
{
    const std::vector<int64_t> tokens = randomTokens(kTokens);
    for (auto _ : state) {
        attn::KvCache cache = model().newCache();
        benchmark::DoNotOptimize(model().forward(cache, tokens, logitsOnly()).logits.data());
    }
}

/// Head (layer, 0) removed; range(1) = 1 re-runs from that layer, 0 runs every layer.
void ablateHead(benchmark::State& state)
{
    const int64_t layer = state.range(0);
    const bool reuse = state.range(1) != 0;
    const std::vector<int64_t> tokens = randomTokens(kTokens);
    attn::Intervention removal;
    removal.headMask = attn::headMaskWith({ { layer, 0 } }, 0.0f, model().config());
    const attn::ReusableRun run(model(), tokens, logitsOnly()); // kept from the unmodified view, outside the timing
    attn::ForwardOptions options = logitsOnly();
    options.intervention = &removal;
    for (auto _ : state) {
        if (reuse) {
            benchmark::DoNotOptimize(run.rerun(removal).logits.data());
        } else {
            attn::KvCache cache = model().newCache();
            benchmark::DoNotOptimize(model().forward(cache, tokens, options).logits.data());
        }
    }
}

/// Importance of all 144 heads over one 512-token input (the unmodified pass included).
void headImportance(benchmark::State& state)
{
    const std::vector<std::vector<int64_t>> inputs { randomTokens(kTokens) };
    for (auto _ : state)
        benchmark::DoNotOptimize(attn::headImportance(model(), inputs, logitsOnly()).data());
}

} // namespace

BENCHMARK(forward)->Name("intervention/forward/512")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(ablateHead)
    ->Name("intervention/ablate_head")
    ->ArgNames({ "layer", "reuse" })
    ->ArgsProduct({ { 0, 6, 11 }, { 0, 1 } })
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(headImportance)
    ->Name("intervention/head_importance_144/512")
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();

BENCHMARK_MAIN();
