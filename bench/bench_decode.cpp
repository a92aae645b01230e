// SPDX-License-Identifier: MIT
// Greedy decoding of stories260K through Session, the loop `attnscope-cli generate` runs: BOS, then argmax of each
// step's logits, stopping at BOS as llama2.c run.c does. Decode/Capture keeps every layer's per-head attention row of
// every step; Decode/Plain asks for none. bench/README.md compares both with run.c.
#include "bench_data.h"
#include "model/model_loader.h"
#include "session/sampler.h"
#include "session/session.h"

#include <benchmark/benchmark.h>

namespace {

void decode(benchmark::State& state, bool capture)
{
    const auto model = attn::loadModel(stories260K());
    attn::ForwardOptions options;
    options.wantAttention = capture;
    attn::Session session(model, options);
    const int64_t steps = state.range(0), vocab = model->config().vocabSize;
    const auto layers = static_cast<size_t>(model->config().numLayers);
    session.reserve(steps);
    int64_t stepped = 0;
    for (auto _ : state) {
        session.reset();
        int64_t token = 1; // BOS, as run.c
        for (int64_t pos = 0; pos < steps; ++pos) {
            const auto r = session.step(token);
            // A capture run that silently recorded nothing would make the comparison meaningless.
            if (r->attention.size() != (capture ? layers : 0)) {
                state.SkipWithError("unexpected number of attention layers in a step result");
                return;
            }
            ++stepped;
            token = attn::argmax(r->logits.data(), vocab);
            if (token == 1)
                break;
        }
        benchmark::DoNotOptimize(token);
    }
    // Per CPU second of this thread (the engine is single-threaded); the Time column gives the wall time.
    state.counters["tok/s"] = benchmark::Counter(static_cast<double>(stepped), benchmark::Counter::kIsRate);
}

} // namespace

BENCHMARK_CAPTURE(decode, Plain, false)->Arg(256)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(decode, Capture, true)->Arg(256)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
