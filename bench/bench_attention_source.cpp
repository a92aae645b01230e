// SPDX-License-Identifier: MIT
// What a head switch in a long input costs the engine thread: one head's level-of-detail overview at the heatmap's
// resolution (AttentionSource::kOverviewSide cells per side), derived from its stored queries and keys, on the CPU,
// for a causal head of GPT-2 small's shape (head dim 64) at 2,048 / 4,096 / 8,192 tokens. Each iteration uses a fresh
// source, so nothing is cached; "summarized" first adopts the head's statistics and thumbnail as a forward would
// (SummaryCollector), which is the state a head switch finds. See bench/README.md.
#include "attention_source/attention_source.h"
#include "support/tile_cases.h"

#include <benchmark/benchmark.h>

namespace {

using namespace attn;

std::shared_ptr<const QueryKeyStore> oneHead(int64_t tokens)
{
    return std::make_shared<OwnedQueryKeys>(std::vector<Tensor> { test::normalTensor({ 1, tokens, 64 }, 1) },
        std::vector<Tensor> { test::normalTensor({ 1, tokens, 64 }, 2) });
}

void headOverview(benchmark::State& state)
{
    const auto store = oneHead(state.range(0));
    AttentionOptions options;
    options.mask.causal = true;
    const bool summarized = state.range(1) != 0;
    HeadStats stats;
    Overview thumbnail;
    if (summarized) {
        const AttentionSource source(store, options);
        stats = source.headStats(0, 0);
        thumbnail = *source.overview(0, 0, AttentionSource::kThumbnailSide);
    }
    for (auto _ : state) {
        const AttentionSource source(store, options);
        if (summarized) source.adoptSummary(0, 0, stats, thumbnail);
        benchmark::DoNotOptimize(source.overview(0, 0)->levels.size());
    }
    state.SetLabel(summarized ? "summarized" : "cold");
}

} // namespace

BENCHMARK(headOverview)
    ->ArgsProduct({ { 2048, 4096, 8192 }, { 1, 0 } })
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.5);

BENCHMARK_MAIN();
