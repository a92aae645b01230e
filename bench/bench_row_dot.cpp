// SPDX-License-Identifier: MIT
// The decode step's weight products (quant/row_dot.h) at Llama-3.2-1B's width: rowDots over a [rows, 2048] matrix of
// random Q8_0 / Q4_K / BF16 blocks with 1 or 4 activation rows, from L2 (256 KiB of weights: the arithmetic) and from
// memory (512 MiB: the loads), one thread, on AVX2 and on AVX-512; packedLinear of one activation row over the 512 MiB
// matrix on every core (the decode step's product as it runs); and packedLinear of a 512-token prefill. Reported as
// GB/s of weight bytes read (per CPU-second for the one-thread cases, per wall-second for packedLinear) and GFLOP/s
// for the prefill (see bench/README.md).
#include "backend/cpu_packed_matmul.h"
#include "quant/packed_matrix.h"
#include "quant/row_dot.h"

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

namespace {

using attn::GgmlType;

constexpr GgmlType kTypes[] = { GgmlType::Q8_0, GgmlType::Q4_K, GgmlType::BF16 };
constexpr int64_t kCols = 2048;

/// Random blocks of `type` filling about `bytes` bytes, whole rows of kCols. Every 2-byte word is a finite half of
/// magnitude below 2 (the blocks' scales), or for BF16 a normal bfloat16 near 2^-7: subnormal weights would time the
/// CPU's microcode assists, not the product.
std::vector<uint8_t> randomMatrix(GgmlType type, int64_t bytes, int64_t& rows)
{
    const attn::GgmlTypeTraits& t = attn::ggmlTypeTraits(type);
    const int64_t rowBytes = kCols / t.blockSize * t.blockBytes;
    rows = bytes / rowBytes;
    std::vector<uint8_t> m(static_cast<size_t>(rows * rowBytes));
    std::mt19937 rng(1);
    for (auto& b : m)
        b = static_cast<uint8_t>(rng());
    for (size_t i = 1; i < m.size(); i += 2)
        m[i] = type == GgmlType::BF16 ? static_cast<uint8_t>((m[i] & 0x80) | 0x3c) : (m[i] & 0x3b);
    return m;
}

std::vector<float> activations(int64_t n)
{
    std::mt19937 rng(2);
    std::normal_distribution<float> normal;
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x)
        v = normal(rng);
    return x;
}

/// Arguments: the index into kTypes, the activation rows (1 .. kRowDotsMaxRows), the matrix's KiB, the instruction
/// set (0: AVX2, 1: AVX-512; the same bits).
void bmRowDots(benchmark::State& state)
{
    const GgmlType type = kTypes[state.range(0)];
    const attn::RowDotIsa isa = state.range(3) ? attn::RowDotIsa::Avx512 : attn::RowDotIsa::Avx2;
    if (!attn::hasRowDotIsa(isa)) return state.SkipWithError("this CPU lacks the instruction set");
    const int64_t n = state.range(1);
    int64_t rows = 0;
    const std::vector<uint8_t> w = randomMatrix(type, state.range(2) * 1024, rows);
    const std::vector<float> x = activations(n * kCols);
    const int64_t rowBytes = static_cast<int64_t>(w.size()) / rows;
    std::vector<float> out(static_cast<size_t>(n * rows));
    const attn::RowDotInput input(type, x.data(), kCols, n, isa);
    for (auto _ : state) {
        for (int64_t r = 0; r < rows; ++r)
            attn::rowDots(input, w.data() + r * rowBytes, out.data() + r, rows);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(w.size()));
    state.SetLabel(std::string(attn::ggmlTypeTraits(type).name) + " x" + std::to_string(n)
        + (state.range(3) ? " avx512" : " avx2"));
}

BENCHMARK(bmRowDots)->ArgsProduct({ { 0, 1, 2 }, { 1, 4 }, { 256, 512 * 1024 }, { 0, 1 } });

/// packedLinear of one activation row (a decode step) over 512 MiB of kTypes[argument] on every core.
void bmPackedDecode(benchmark::State& state)
{
    const GgmlType type = kTypes[state.range(0)];
    int64_t rows = 0;
    const std::vector<uint8_t> w = randomMatrix(type, int64_t { 512 } << 20, rows);
    const attn::PackedMatrix m(type, rows, kCols, w.data(), nullptr);
    const attn::Tensor x({ 1, kCols }, activations(kCols));
    for (auto _ : state)
        benchmark::DoNotOptimize(attn::packedLinear(x, m, nullptr).data());
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(w.size()));
    state.SetLabel(attn::ggmlTypeTraits(type).name);
}

BENCHMARK(bmPackedDecode)->DenseRange(0, 2)->UseRealTime()->Unit(benchmark::kMillisecond);

/// packedLinear of a 512-token prefill over an [8192, 2048] matrix of kTypes[argument] (a Llama-3.2-1B gate
/// projection) on every core: the weight widened a chunk of rows at a time and multiplied. GFLOP/s per wall-second.
void bmPackedPrefill(benchmark::State& state)
{
    const GgmlType type = kTypes[state.range(0)];
    constexpr int64_t kTokens = 512;
    int64_t rows = 0;
    const attn::GgmlTypeTraits& t = attn::ggmlTypeTraits(type);
    const std::vector<uint8_t> w = randomMatrix(type, 8192 * (kCols / t.blockSize * t.blockBytes), rows);
    const attn::PackedMatrix m(type, rows, kCols, w.data(), nullptr);
    const attn::Tensor x({ kTokens, kCols }, activations(kTokens * kCols));
    for (auto _ : state)
        benchmark::DoNotOptimize(attn::packedLinear(x, m, nullptr).data());
    state.counters["GFLOP/s"] = benchmark::Counter(
        static_cast<double>(state.iterations()) * 2.0 * kTokens * static_cast<double>(rows * kCols) / 1e9,
        benchmark::Counter::kIsRate);
    state.SetLabel(t.name);
}

BENCHMARK(bmPackedPrefill)->DenseRange(0, 2)->UseRealTime()->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
