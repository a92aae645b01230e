// SPDX-License-Identifier: MIT
// Dequantization throughput of every ggml block type: dequantizeRow (the AVX2 rows where the CPU has AVX2) next to
// dequantizeRowPortable (the scalar code), over 1 MiB-of-float32 rows of random blocks (an L2-sized working set, so
// the rows' arithmetic is measured, not the memory). Reported as GB/s of float32 written (see bench/README.md).
#include "quant/dequantize.h"

#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <vector>

namespace {

using attn::GgmlType;

constexpr GgmlType kTypes[] = { GgmlType::Q8_0, GgmlType::Q4_0, GgmlType::Q4_1, GgmlType::Q5_0, GgmlType::Q5_1,
    GgmlType::Q2_K, GgmlType::Q3_K, GgmlType::Q4_K, GgmlType::Q5_K, GgmlType::Q6_K };

/// Arguments: the index into kTypes, and 1 for dequantizeRow or 0 for dequantizeRowPortable.
void bmDequantize(benchmark::State& state)
{
    const GgmlType type = kTypes[state.range(0)];
    const attn::GgmlTypeTraits& t = attn::ggmlTypeTraits(type);
    constexpr int64_t kElements = 256 * 1024;
    std::vector<uint8_t> bytes(static_cast<size_t>(kElements / t.blockSize * t.blockBytes));
    std::mt19937 rng(1);
    for (auto& b : bytes)
        b = static_cast<uint8_t>(rng());
    // Every 2-byte word a finite half (0x3c00-ish): whichever bytes a type reads as its scales are then finite.
    for (size_t i = 1; i < bytes.size(); i += 2)
        bytes[i] &= 0x3b;
    std::vector<float> out(static_cast<size_t>(kElements));
    const auto row = state.range(1) ? attn::dequantizeRow : attn::dequantizeRowPortable;
    for (auto _ : state) {
        row(type, bytes.data(), out.data(), kElements);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(state.iterations() * kElements * 4);
    state.SetLabel(std::string(t.name) + (state.range(1) ? " dispatched" : " scalar"));
}

BENCHMARK(bmDequantize)->ArgsProduct({ benchmark::CreateDenseRange(0, 9, 1), { 0, 1 } });

} // namespace

BENCHMARK_MAIN();
