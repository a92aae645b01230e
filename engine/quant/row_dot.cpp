// SPDX-License-Identifier: MIT
#include "quant/row_dot.h"

#include "core/error.h"
#include "quant/dequantize.h"

#include <cstdlib>
#include <string>

namespace attn {
namespace {

bool cpuHasAvx2Set()
{
#if defined(__x86_64__)
    static const bool available = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && cpuHasF16c();
    return available;
#else
    return false;
#endif
}

bool cpuHasAvx512()
{
#if defined(__x86_64__)
    // The cap first: a misspelt value is an error on every CPU, not only on those with AVX-512.
    static const bool available = rowDotIsaCap(std::getenv(kMaxIsaVariable)) != RowDotIsa::Avx2 && cpuHasAvx2Set()
        && __builtin_cpu_supports("avx512f");
    return available;
#else
    return false;
#endif
}

} // namespace

RowDotIsa rowDotIsaCap(const char* value)
{
    const std::string v = value ? value : "";
    if (v.empty()) return RowDotIsa::Widest;
    if (v == "avx2") return RowDotIsa::Avx2;
    if (v == "avx512") return RowDotIsa::Avx512;
    throw Error(
        std::string(kMaxIsaVariable) + "=" + v + ": expected avx2 or avx512 (or unset: the widest the CPU has)");
}

bool hasRowDots(GgmlType type)
{
    return cpuHasAvx2Set()
        && (type == GgmlType::Q8_0 || type == GgmlType::Q4_K || type == GgmlType::BF16 || type == GgmlType::F16);
}

bool hasRowDotIsa(RowDotIsa isa)
{
    return isa == RowDotIsa::Avx512 ? cpuHasAvx512() : cpuHasAvx2Set();
}

RowDotInput::RowDotInput(GgmlType type, const float* x, int64_t cols, int64_t n, RowDotIsa isa)
    : m_type(type)
    , m_x(x)
    , m_cols(cols)
    , m_n(n)
    , m_kernel(nullptr)
{
    if (!hasRowDots(type) || !hasRowDotIsa(isa) || n < 1 || n > kRowDotsMaxRows)
        throw Error("rowDots: no fused kernel for " + std::string(ggmlTypeTraits(type).name) + " and "
            + std::to_string(n) + " rows on this CPU");
#if defined(__x86_64__)
    const bool wide = isa == RowDotIsa::Avx512 || (isa == RowDotIsa::Widest && cpuHasAvx512());
    m_kernel = wide ? row_dot::avx512Dots(type, n) : row_dot::avx2Dots(type, n);
#endif
    if (type != GgmlType::Q4_K) return;
    const int64_t groups = cols / 32;
    m_groupSums.resize(static_cast<size_t>(n * groups));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t g = 0; g < groups; ++g) {
            double sum = 0;
            for (int64_t i = 0; i < 32; ++i)
                sum += static_cast<double>(x[j * cols + 32 * g + i]);
            m_groupSums[static_cast<size_t>(j * groups + g)] = static_cast<float>(sum);
        }
}

void rowDots(const RowDotInput& x, const uint8_t* row, float* out, int64_t outStride)
{
    x.kernel()(row, row_dot::Activations { x.x(), x.cols(), x.groupSums() }, out, outStride);
}

} // namespace attn
