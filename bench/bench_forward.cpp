// SPDX-License-Identifier: MIT
// Prefill of 512 and 2,048 tokens through a GPT-2-small-shaped model (12 layers, 12 heads, 768 wide, vocab 50257,
// random weights) with every layer's attention probabilities captured: our side of the comparison with
// bench/pytorch_gpt2_eager.py (see bench/README.md). Also one decode step at that context length; both on the CPU
// (vulkan:0) and, in a Vulkan build, on the Vulkan stream (vulkan:1, the whole forward resident on the device). The
// model is bench/random_gpt2.h's.
#include "backend/backend_registry.h"
#include "core/blas.h"
#include "random_gpt2.h"
#include "session/prompt_run.h"
#include "session/session.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace bench;

/// The backend of argument `vulkan:0|1`: none (the plain CPU path) or Vulkan. A Vulkan request that fell back to the
/// CPU is recorded in fellBack, so that no CPU time is reported as Vulkan time.
struct BenchBackend {
    std::shared_ptr<attn::Backend> backend;
    std::shared_ptr<std::string> fellBack = std::make_shared<std::string>();
    bool missing = false; ///< Vulkan was asked for and there is none (the benchmark is skipped with an error)
};

BenchBackend backendFor(benchmark::State& state)
{
    BenchBackend b;
    if (!state.range(0))
        return b;
    auto sel = attn::createBackend(
        attn::BackendChoice::Vulkan, [fellBack = b.fellBack](const std::string& m) { *fellBack += m; });
    if (!sel.ok()) {
        state.SkipWithError(("no Vulkan: " + sel.error()).c_str());
        b.missing = true;
        return b;
    }
    b.backend = sel->backend;
    return b;
}

double maxAbsDiff(const attn::Tensor& a, const attn::Tensor& b)
{
    double m = a.shape() == b.shape() ? 0.0 : std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < a.numel() && i < b.numel(); ++i)
        m = std::max(m, static_cast<double>(std::fabs(a.data()[i] - b.data()[i])));
    return m;
}

void prefill(benchmark::State& state, bool capture)
{
    const auto& model = gpt2Small();
    const int64_t n = state.range(1);
    const BenchBackend device = backendFor(state);
    if (device.missing)
        return;
    const std::vector<int64_t> tokens = randomTokens(n);
    attn::ForwardOptions options;
    options.wantAttention = capture;
    options.backend = device.backend.get();
    attn::Session session(model, options);
    session.reserve(n);
    std::shared_ptr<const attn::StepResult> r;
    for (auto _ : state) {
        session.reset();
        r = session.prefill(tokens);
        const bool complete = capture ? r->attention.size() == static_cast<size_t>(kLayers)
                && r->attention[0].shape() == attn::Shape { kHeads, n, n }
                                      : r->attention.empty();
        if (!complete || r->logits.shape() != attn::Shape { n, kVocab }) {
            state.SkipWithError("prefill result lacks the attention or logits it was asked for");
            return;
        }
        benchmark::DoNotOptimize(r->logits.data());
    }
    state.counters["tok/s"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
    if (!device.fellBack->empty()) {
        state.SkipWithError(("ran on the CPU: " + *device.fellBack).c_str());
    } else if (device.backend) { // the device's numbers against the CPU's, at full scale
        attn::ForwardOptions cpu = options;
        cpu.backend = nullptr;
        attn::Session reference(model, cpu);
        const auto want = reference.prefill(tokens);
        double attention = 0.0;
        for (size_t l = 0; l < want->attention.size(); ++l)
            attention = std::max(attention, maxAbsDiff(r->attention[l], want->attention[l]));
        const double logits = maxAbsDiff(r->logits, want->logits);
        state.counters["max|dlogits|"] = logits;
        state.counters["max|dattn|"] = attention;
        // The project's bounds: 1e-5 for probabilities (fp32 parity), 1e-4 for logits (the fixtures' floor).
        if (attention > 1e-5 || logits > 1e-4)
            state.SkipWithError("Vulkan and CPU results differ beyond 1e-5 (attention) / 1e-4 (logits)");
    }
}

/// The prefill as the GUI runs an input for its attention views (EngineProvider::runPair): the logits of the last row
/// only (the views never read the others); every attention matrix kept when all of them fit the GUI's 256 MB (512
/// tokens), else derived on request from the queries and keys the pass keeps, with every head's statistics gathered
/// from the forward's own probabilities (2,048 and 4,096 tokens). What a forward with all attention available to the
/// views costs: bench/peers.sh's `views` puts it next to eager PyTorch with output_attentions. CPU only.
void views(benchmark::State& state)
{
    const int64_t n = state.range(1);
    const std::vector<int64_t> tokens = randomTokens(n);
    attn::PromptOptions options;
    options.forward.lastLogitsOnly = true;
    options.materializeBytes = uint64_t(256) << 20; // ui/controller/engine_provider.cpp's kMaterializeBytes
    options.summarize = true;
    options.tilesOnCpu = true;
    // One run before the timing, as the PyTorch peer warms up: the first touches the mapped weights and the allocator.
    attn::runPrompt(gpt2Small(), tokens, {}, options);
    for (auto _ : state) {
        const attn::PromptRun run = attn::runPrompt(gpt2Small(), tokens, {}, options);
        const bool all = run.derived ? run.derived->numLayers() == kLayers
                                     : run.result->attention.size() == static_cast<size_t>(kLayers);
        if (!all) {
            state.SkipWithError("the run lacks some layer's attention");
            return;
        }
        benchmark::DoNotOptimize(run.result->logits.data());
    }
    state.counters["derived"] = attn::derivesAttention(gpt2Small()->config(), n, options) ? 1 : 0;
    state.counters["tok/s"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
}

/// One decode step (with every layer's attention row captured) after a context of n - 1 tokens; Back after each step
/// keeps the context length fixed, as a user stepping back and forth in the Decode tab.
void decodeStep(benchmark::State& state)
{
    const auto& model = gpt2Small();
    const int64_t n = state.range(1);
    const BenchBackend device = backendFor(state);
    if (device.missing)
        return;
    attn::ForwardOptions options;
    options.backend = device.backend.get();
    attn::Session session(model, options);
    session.reserve(n);
    const std::vector<int64_t> tokens = randomTokens(n);
    session.prefill(std::vector<int64_t>(tokens.begin(), tokens.end() - 1));
    for (auto _ : state) {
        const auto r = session.step(tokens.back());
        if (r->attention.size() != static_cast<size_t>(kLayers) || r->attention[0].shape() != attn::Shape { kHeads, 1, n }) {
            state.SkipWithError("decode step lacks its attention row");
            return;
        }
        benchmark::DoNotOptimize(r->logits.data());
        session.rewind(1);
    }
    const attn::DeviceTraffic traffic = device.backend ? device.backend->traffic() : attn::DeviceTraffic {};
    state.counters["uploaded MB"] = static_cast<double>(traffic.uploadedBytes) / 1e6;
    if (!device.fellBack->empty())
        state.SkipWithError(("ran on the CPU: " + *device.fellBack).c_str());
}

void forwardArgs(benchmark::internal::Benchmark* b)
{
    // Real time: Vulkan waits, it does not spin. CPU time of the whole process: OpenBLAS's threads count.
    b->ArgNames({ "vulkan", "tokens" })->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();
    b->Args({ 0, 512 });
#ifdef AS_HAVE_VULKAN
    b->Args({ 1, 512 });
#endif
}

/// The prefills also at 2,048 tokens on the CPU (bench/peers.sh's second length; minutes on lavapipe).
void prefillArgs(benchmark::internal::Benchmark* b)
{
    forwardArgs(b);
    b->Args({ 0, 2048 });
}

/// The views' run on the CPU at 512 tokens (attention kept), 2,048 and 4,096 (derived).
void viewsArgs(benchmark::internal::Benchmark* b)
{
    b->ArgNames({ "vulkan", "tokens" })->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();
    for (int64_t n : { 512, 2048, 4096 })
        b->Args({ 0, n });
}

// The kernels the products ran on, in the output's context block: a peer compared with these numbers should use the
// same (bench/peers.sh sets OPENBLAS_CORETYPE for both).
[[maybe_unused]] const bool kBlasContext = (benchmark::AddCustomContext("openblas_core", attn::blasKernels()), true);

} // namespace

// A few seconds per forward: fixed small iteration counts; add --benchmark_repetitions for medians.
BENCHMARK_CAPTURE(prefill, Capture, true)->Apply(prefillArgs)->Iterations(2);
BENCHMARK_CAPTURE(prefill, Plain, false)->Apply(prefillArgs)->Iterations(2);
BENCHMARK(decodeStep)->Apply(forwardArgs)->Iterations(10);
BENCHMARK(views)->Apply(viewsArgs)->Iterations(2);

BENCHMARK_MAIN();
