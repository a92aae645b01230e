// SPDX-License-Identifier: MIT
// Prefill of 512 tokens through a GPT-2-small-shaped model (12 layers, 12 heads, 768 wide, vocab 50257, random
// weights) with every layer's attention probabilities captured: our side of the comparison with
// bench/pytorch_gpt2_eager.py (see bench/README.md). Also one decode step at that context length; both on the CPU
// (vulkan:0) and, in a Vulkan build, on the Vulkan stream (vulkan:1, the whole forward resident on the device). The
// bench writes the HF folder (config.json + model.safetensors, fp32, HF's init scales) to a temporary directory, loads
// it with loadModel as any downloaded model, and removes it.
#include "backend/backend_registry.h"
#include "model/model_loader.h"
#include "session/session.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

constexpr int64_t kLayers = 12, kHeads = 12, kWidth = 768, kVocab = 50257, kPositions = 1024;

struct TensorSpec {
    std::string name;
    std::vector<int64_t> shape;
    enum Fill { Normal, Ones, Zeros } fill;
};

std::vector<TensorSpec> gpt2Tensors()
{
    std::vector<TensorSpec> t { { "transformer.wte.weight", { kVocab, kWidth }, TensorSpec::Normal },
        { "transformer.wpe.weight", { kPositions, kWidth }, TensorSpec::Normal } };
    for (int64_t l = 0; l < kLayers; ++l) {
        const std::string p = "transformer.h." + std::to_string(l) + ".";
        t.push_back({ p + "ln_1.weight", { kWidth }, TensorSpec::Ones });
        t.push_back({ p + "ln_1.bias", { kWidth }, TensorSpec::Zeros });
        t.push_back({ p + "attn.c_attn.weight", { kWidth, 3 * kWidth }, TensorSpec::Normal }); // Conv1D: [in, out]
        t.push_back({ p + "attn.c_attn.bias", { 3 * kWidth }, TensorSpec::Zeros });
        t.push_back({ p + "attn.c_proj.weight", { kWidth, kWidth }, TensorSpec::Normal });
        t.push_back({ p + "attn.c_proj.bias", { kWidth }, TensorSpec::Zeros });
        t.push_back({ p + "ln_2.weight", { kWidth }, TensorSpec::Ones });
        t.push_back({ p + "ln_2.bias", { kWidth }, TensorSpec::Zeros });
        t.push_back({ p + "mlp.c_fc.weight", { kWidth, 4 * kWidth }, TensorSpec::Normal });
        t.push_back({ p + "mlp.c_fc.bias", { 4 * kWidth }, TensorSpec::Zeros });
        t.push_back({ p + "mlp.c_proj.weight", { 4 * kWidth, kWidth }, TensorSpec::Normal });
        t.push_back({ p + "mlp.c_proj.bias", { kWidth }, TensorSpec::Zeros });
    }
    t.push_back({ "transformer.ln_f.weight", { kWidth }, TensorSpec::Ones });
    t.push_back({ "transformer.ln_f.bias", { kWidth }, TensorSpec::Zeros });
    return t;
}

int64_t numel(const std::vector<int64_t>& shape)
{
    int64_t n = 1;
    for (const int64_t d : shape)
        n *= d;
    return n;
}

/// A random GPT-2-small HF folder in a fresh temporary directory, removed with the object.
class RandomGpt2Folder {
public:
    RandomGpt2Folder()
    {
        std::string pattern = (fs::temp_directory_path() / "attnscope-bench-gpt2-XXXXXX").string();
        if (!mkdtemp(pattern.data()))
            throw std::runtime_error("cannot create a temporary directory for the bench model");
        m_dir = pattern;
        writeConfig();
        writeWeights();
    }
    ~RandomGpt2Folder()
    {
        std::error_code ec;
        fs::remove_all(m_dir, ec);
    }
    RandomGpt2Folder(const RandomGpt2Folder&) = delete;
    RandomGpt2Folder& operator=(const RandomGpt2Folder&) = delete;
    std::string path() const { return m_dir.string(); }

private:
    void writeConfig() const
    {
        std::ofstream out(m_dir / "config.json");
        out << R"({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_layer": )" << kLayers
            << R"(, "n_head": )" << kHeads << R"(, "n_embd": )" << kWidth << R"(, "vocab_size": )" << kVocab
            << R"(, "n_positions": )" << kPositions
            << R"(, "n_inner": null, "activation_function": "gelu_new", "layer_norm_epsilon": 1e-05})" << '\n';
        if (!out)
            throw std::runtime_error("cannot write " + (m_dir / "config.json").string());
    }

    void writeWeights() const
    {
        const std::vector<TensorSpec> tensors = gpt2Tensors();
        std::string header = "{";
        int64_t offset = 0;
        for (const TensorSpec& t : tensors) {
            const int64_t bytes = 4 * numel(t.shape);
            header += (header.size() > 1 ? ", \"" : "\"") + t.name + R"(": {"dtype": "F32", "shape": [)";
            for (size_t i = 0; i < t.shape.size(); ++i)
                header += (i ? ", " : "") + std::to_string(t.shape[i]);
            header += "], \"data_offsets\": [" + std::to_string(offset) + ", " + std::to_string(offset + bytes) + "]}";
            offset += bytes;
        }
        header += "}";
        header.append((8 - header.size() % 8) % 8, ' '); // safetensors pads the header to 8 bytes with spaces
        const fs::path file = m_dir / "model.safetensors";
        std::ofstream out(file, std::ios::binary);
        const uint64_t headerBytes = header.size();
        out.write(reinterpret_cast<const char*>(&headerBytes), sizeof headerBytes); // little-endian host
        out.write(header.data(), static_cast<std::streamsize>(header.size()));
        std::mt19937 rng(1234);
        std::normal_distribution<float> normal(0.0f, 0.02f); // HF GPT-2 initializer_range
        std::vector<float> buffer;
        for (const TensorSpec& t : tensors) {
            buffer.assign(static_cast<size_t>(numel(t.shape)), t.fill == TensorSpec::Ones ? 1.0f : 0.0f);
            if (t.fill == TensorSpec::Normal)
                for (float& v : buffer)
                    v = normal(rng);
            out.write(reinterpret_cast<const char*>(buffer.data()), static_cast<std::streamsize>(4 * buffer.size()));
        }
        if (!out)
            throw std::runtime_error("cannot write " + file.string());
    }

    fs::path m_dir;
};

/// Loaded once for all benchmarks of the run; the folder is only needed while loading.
const std::shared_ptr<attn::Model>& gpt2Small()
{
    static const std::shared_ptr<attn::Model> model = [] {
        const RandomGpt2Folder folder;
        return attn::loadModel(folder.path());
    }();
    return model;
}

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

std::vector<int64_t> randomTokens(int64_t n)
{
    std::mt19937 rng(42);
    std::uniform_int_distribution<int64_t> id(0, kVocab - 1);
    std::vector<int64_t> tokens(static_cast<size_t>(n));
    for (int64_t& t : tokens)
        t = id(rng);
    return tokens;
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
    b->ArgNames({ "vulkan", "tokens" })->Unit(benchmark::kMillisecond)->UseRealTime(); // Vulkan waits, it does not spin
    b->Args({ 0, 512 });
#ifdef AS_HAVE_VULKAN
    b->Args({ 1, 512 });
#endif
}

} // namespace

// A few seconds per forward: fixed small iteration counts; add --benchmark_repetitions for medians.
BENCHMARK_CAPTURE(prefill, Capture, true)->Apply(forwardArgs)->Iterations(2);
BENCHMARK_CAPTURE(prefill, Plain, false)->Apply(forwardArgs)->Iterations(2);
BENCHMARK(decodeStep)->Apply(forwardArgs)->Iterations(10);

BENCHMARK_MAIN();
