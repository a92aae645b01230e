// SPDX-License-Identifier: MIT
// Each backend op on the CPU and on Vulkan at 512 / 2048 / 8192 tokens, with GFLOP/s and GB/s counters.
// Vulkan timings include upload and read-back (what a caller of the Backend sees). See bench/README.md.
#include "backend/cpu_backend.h"
#if AS_HAVE_VULKAN
#include "vulkan/vulkan_backend.h"
#endif

#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace attn;

Tensor randomTensor(Shape shape, uint32_t seed, float sigma = 1.0f)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, sigma);
    Tensor t(std::move(shape));
    for (auto& v : t.storage())
        v = dist(rng);
    return t;
}

/// 0 = CPU, 1 = Vulkan; null (with the reason) when Vulkan is unavailable.
Backend* backendFor(int64_t which, std::string& why)
{
    static CpuBackend cpu;
    if (which == 0)
        return &cpu;
#if AS_HAVE_VULKAN
    static std::string reason;
    static const std::unique_ptr<Backend> vulkan = []() -> std::unique_ptr<Backend> {
        try {
            return createVulkanBackend();
        } catch (const DeviceFailure& e) {
            reason = e.what();
            return nullptr;
        }
    }();
    why = reason;
    return vulkan.get();
#else
    why = "built without Vulkan";
    return nullptr;
#endif
}

void setCounters(benchmark::State& state, double flops, double bytes, Backend& b)
{
    state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["GB/s"] = benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    state.SetLabel(b.name() + ": " + b.device().name);
}

#define AS_BACKEND_OR_SKIP(state)                                                                                      \
    std::string why;                                                                                                   \
    Backend* backend = backendFor(state.range(0), why);                                                                \
    if (!backend) {                                                                                                    \
        state.SkipWithError(("no Vulkan device: " + why).c_str());                                                     \
        return;                                                                                                        \
    }

// Fused attention output (no probabilities): 8 query heads on 2 kv heads, head dim 64, causal prefill.
void BM_AttentionOutput(benchmark::State& state)
{
    AS_BACKEND_OR_SKIP(state)
    const int64_t n = state.range(1), hq = 8, hkv = 2, d = 64;
    const Tensor q = randomTensor({ hq, n, d }, 1), k = randomTensor({ hkv, n, d }, 2), v = randomTensor({ hkv, n, d }, 3);
    AttentionOptions o;
    o.mask.causal = true;
    o.wantProbs = false;
    for (auto _ : state)
        benchmark::DoNotOptimize(backend->attention(q, k, v, o));
    // Dense count (QK^T and PV over all pairs), the usual convention for attention throughput.
    setCounters(state, 4.0 * hq * n * n * d, 4.0 * (2 * hq * n * d + 2 * hkv * n * d), *backend);
}

// All probabilities of 2 heads (what the attention views ask for): [2, n, n] floats come back. Head dim 64 or 128.
void BM_AttentionProbabilities(benchmark::State& state)
{
    AS_BACKEND_OR_SKIP(state)
    const int64_t n = state.range(1), hq = 2, d = state.range(2);
    const Tensor q = randomTensor({ hq, n, d }, 1), k = randomTensor({ 1, n, d }, 2);
    AttentionOptions o;
    o.mask.causal = true;
    for (auto _ : state)
        benchmark::DoNotOptimize(backend->attentionProbabilities(q, k, o));
    setCounters(state, 2.0 * hq * n * n * d, 4.0 * (hq * n * d + n * d + hq * n * n), *backend);
}

// What BM_AttentionProbabilities pays before any arithmetic: its fresh, zero-filled [2, n, n] result (glibc maps every
// allocation over 32 MB afresh, so each call faults in and clears new pages). CPU only.
void BM_FreshResult(benchmark::State& state)
{
    const int64_t n = state.range(1), hq = 2;
    for (auto _ : state)
        benchmark::DoNotOptimize(Tensor({ hq, n, n }).data());
    state.counters["GB/s"] = benchmark::Counter(4e-9 * hq * n * n, benchmark::Counter::kIsIterationInvariantRate);
}

// A 256 x 256 tile of one head, normalized over all n keys.
void BM_ProbabilityTile(benchmark::State& state)
{
    AS_BACKEND_OR_SKIP(state)
    const int64_t n = state.range(1), hq = 8, d = 64, tile = 256;
    const Tensor q = randomTensor({ hq, n, d }, 1), k = randomTensor({ 2, n, d }, 2);
    const TileRange r { 3, n - tile, n, n / 2 - tile / 2, n / 2 + tile / 2 };
    for (auto _ : state)
        benchmark::DoNotOptimize(backend->probabilityTile(q, k, r, {}));
    setCounters(state, 2.0 * tile * n * d, 4.0 * (hq * n * d + 2 * n * d + tile * tile), *backend);
}

// RoPE on 32 heads x n tokens x 128 dims.
void BM_Rope(benchmark::State& state)
{
    AS_BACKEND_OR_SKIP(state)
    const int64_t n = state.range(1), heads = 32, d = 128;
    Tensor x = randomTensor({ heads, n, d }, 1);
    for (auto _ : state)
        backend->rope(x, 0, RopeStyle::RotateHalf, 10000.0, d);
    setCounters(state, 6.0 * heads * n * d / 2, 2.0 * 4 * heads * n * d, *backend);
}

// y = x W^T + b: n tokens through a 1024 -> 1024 projection.
void BM_Matmul(benchmark::State& state)
{
    AS_BACKEND_OR_SKIP(state)
    const int64_t n = state.range(1), in = 1024, out = 1024;
    const Tensor x = randomTensor({ n, in }, 1), w = randomTensor({ out, in }, 2, 0.03f), b = randomTensor({ out }, 3);
    for (auto _ : state)
        benchmark::DoNotOptimize(backend->matmul(x, w, &b));
    setCounters(state, 2.0 * n * in * out, 4.0 * (n * in + out * in + n * out), *backend);
}

/// Names, unit and timing of every benchmark here: real time, and the CPU time of all the process's threads.
void timing(benchmark::internal::Benchmark* b, std::vector<std::string> names)
{
    b->ArgNames(std::move(names))->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();
}

void sizes(benchmark::internal::Benchmark* b)
{
    timing(b, { "vulkan", "tokens" });
    for (int64_t backend : { 0, 1 })
        for (int64_t n : { 512, 2048, 8192 })
            b->Args({ backend, n });
}

/// The CPU alone at every size.
void cpuSizes(benchmark::internal::Benchmark* b)
{
    timing(b, { "vulkan", "tokens" });
    for (int64_t n : { 512, 2048, 8192 })
        b->Args({ 0, n });
}

BENCHMARK(BM_AttentionOutput)->Apply(sizes);
void probabilitySizes(benchmark::internal::Benchmark* b)
{
    timing(b, { "vulkan", "tokens", "d" });
    for (int64_t backend : { 0, 1 })
        for (int64_t n : { 512, 2048, 8192 })
            for (int64_t d : { 64, 128 })
                b->Args({ backend, n, d });
}

BENCHMARK(BM_AttentionProbabilities)->Apply(probabilitySizes);
BENCHMARK(BM_FreshResult)->Apply(cpuSizes);
BENCHMARK(BM_ProbabilityTile)->Apply(sizes);
BENCHMARK(BM_Rope)->Apply(sizes);
BENCHMARK(BM_Matmul)->Apply(sizes);

} // namespace

BENCHMARK_MAIN();
