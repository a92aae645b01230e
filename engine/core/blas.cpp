// SPDX-License-Identifier: MIT
#include "core/blas.h"

#include "core/small_gemm_avx2.h"

#include <Eigen/Core>
#include <cblas.h>

#include <cstdlib>
#include <cstring>

// Exported by OpenBLAS builds with DYNAMIC_ARCH (Debian's); weak so that another build simply skips the fix-up.
extern "C" {
void gotoblas_dynamic_init(void) __attribute__((weak));
void gotoblas_dynamic_quit(void) __attribute__((weak));
int blas_thread_shutdown_(void) __attribute__((weak));
}

namespace attn {
namespace {

/// OpenBLAS 0.3.21 (Debian 12) does not know CPUs newer than its release (e.g. family 6 model 0xCF, Emerald
/// Rapids) and falls back to its SSE3 "Prescott" kernels, 4 to 8 times slower than the CPU allows. When it did, and
/// the user has not chosen a core with OPENBLAS_CORETYPE, pick the kernels the CPU's features support and redo
/// OpenBLAS's own dynamic selection, which honours that variable.
std::string selectKernels()
{
    const std::string detected = openblas_get_corename();
    if (detected != "Prescott" || std::getenv("OPENBLAS_CORETYPE") || !gotoblas_dynamic_init || !gotoblas_dynamic_quit)
        return detected;
    const char* core = nullptr;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")
        && __builtin_cpu_supports("avx512vl"))
        core = "SkylakeX";
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        core = "Haswell";
    if (!core) return detected;
    setenv("OPENBLAS_CORETYPE", core, 0);
    gotoblas_dynamic_quit();
    gotoblas_dynamic_init();
    unsetenv("OPENBLAS_CORETYPE"); // children (e.g. a Python reference run) detect for themselves
    return openblas_get_corename();
}

/// vzeroupper where the CPU has AVX. Qt's start-up code leaves the upper halves of the AVX registers in use on the
/// GUI thread; from then on every SSE instruction (this engine is built for baseline x86-64, and libm's expf paths
/// mix in VEX code) paid a state-transition penalty: a stories260K decode step took 1 ms instead of 85 us. The
/// instruction costs about a cycle and no engine code leaves the state dirty again, so clearing it per product is
/// enough.
void clearUpperVectorState()
{
#if defined(__x86_64__)
    static const bool hasAvx = __builtin_cpu_supports("avx");
    if (hasAvx) asm volatile("vzeroupper" ::: "memory");
#endif
}

// Below this many multiply-adds Eigen is faster than a call into OpenBLAS (measured on stories260K decode steps,
// whose products all stay under it).
constexpr int64_t kBlasMinMultiplyAdds = int64_t(1) << 18;

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Strided = Eigen::OuterStride<>;
using ConstMap = Eigen::Map<const RowMatrix, 0, Strided>;

/// dst = product, or dst += product.
template <class Dst, class Product> void store(Dst&& dst, const Product& product, bool accumulate)
{
    if (accumulate)
        dst.noalias() += product;
    else
        dst.noalias() = product;
}

void eigenGemm(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
    bool bTransposed, float* c, int64_t ldc, bool accumulate)
{
    Eigen::Map<RowMatrix, 0, Strided> C(c, m, n, Strided(ldc));
    const ConstMap A(a, m, k, Strided(lda));
    if (bTransposed) {
        const ConstMap B(b, n, k, Strided(ldb));
        if (m == 1) // a matrix-vector product
            return store(C.row(0).transpose(), alpha * B * A.row(0).transpose(), accumulate);
        store(C, alpha * A * B.transpose(), accumulate);
    } else {
        store(C, alpha * A * ConstMap(b, k, n, Strided(ldb)), accumulate);
    }
}

} // namespace

void gemm(int64_t m, int64_t n, int64_t k, float alpha, const float* a, const float* b, bool bTransposed, float* c)
{
    gemmStrided(m, n, k, alpha, a, k, b, bTransposed ? k : n, bTransposed, c, n);
}

void gemmStrided(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
    bool bTransposed, float* c, int64_t ldc, bool accumulate)
{
    clearUpperVectorState(); // every forward starts with a product, so this covers all of it
    if (m == 0 || n == 0) return;
    if (m * n * k < kBlasMinMultiplyAdds) {
        if (smallGemmAvx2(m, n, k, alpha, a, lda, b, ldb, bTransposed, c, ldc, accumulate)) return;
        return eigenGemm(m, n, k, alpha, a, lda, b, ldb, bTransposed, c, ldc, accumulate);
    }
    const auto M = static_cast<blasint>(m), N = static_cast<blasint>(n), K = static_cast<blasint>(k);
    const float beta = accumulate ? 1.0f : 0.0f;
    if (m == 1) {
        if (bTransposed)
            cblas_sgemv(CblasRowMajor, CblasNoTrans, N, K, alpha, b, static_cast<blasint>(ldb), a, 1, beta, c, 1);
        else
            cblas_sgemv(CblasRowMajor, CblasTrans, K, N, alpha, b, static_cast<blasint>(ldb), a, 1, beta, c, 1);
        return;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, bTransposed ? CblasTrans : CblasNoTrans, M, N, K, alpha, a,
        static_cast<blasint>(lda), b, static_cast<blasint>(ldb), beta, c, static_cast<blasint>(ldc));
}

const std::string& blasKernels()
{
    static const std::string name = [] {
        std::string core = selectKernels();
        // OpenBLAS starts its worker threads at load, and they spin for about 0.1 s before they sleep: that doubled
        // the CPU time of a short run (a small model's decode never needs them). It starts them again for the first
        // product large enough to split.
        if (blas_thread_shutdown_) blas_thread_shutdown_();
        return core;
    }();
    return name;
}

namespace {
// Before main, while only this thread exists: no product may start on unfit kernels.
[[maybe_unused]] const bool kBlasKernelsChosen = !blasKernels().empty();
} // namespace

} // namespace attn
