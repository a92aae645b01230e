// SPDX-License-Identifier: MIT
#include "core/blas.h"

#include "core/error.h"
#include "core/small_gemm_avx2.h"

#include <Eigen/Core>
#include <cblas.h>
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

namespace attn {
namespace {

/// OpenBLAS, opened on the first product large enough to need it: loading it (16,000 symbol relocations, its kernel
/// tables, its threads started and stopped) was half of a start of `attnscope-cli`, 2.5 of 5.5 ms, and a small
/// model's decode never calls it.
struct OpenBlas {
    decltype(&cblas_sgemm) sgemm = nullptr;
    decltype(&cblas_sgemv) sgemv = nullptr;
    std::string kernels; ///< the core its products use
    std::string failure; ///< why it could not be opened ("" when it was)
};

template <class F> F symbol(void* library, const char* name)
{
    return reinterpret_cast<F>(dlsym(library, name));
}

/// OpenBLAS 0.3.21 (Debian 12) does not know CPUs newer than its release (e.g. family 6 model 0xCF, Emerald
/// Rapids) and falls back to its SSE3 "Prescott" kernels, 4 to 8 times slower than the CPU allows. When it did, and
/// the user has not chosen a core with OPENBLAS_CORETYPE, pick the kernels the CPU's features support and redo
/// OpenBLAS's own dynamic selection (exported by builds with DYNAMIC_ARCH, Debian's), which honours that variable.
std::string selectKernels(void* library)
{
    const auto corename = symbol<char* (*)()>(library, "openblas_get_corename");
    const auto init = symbol<void (*)()>(library, "gotoblas_dynamic_init");
    const auto quit = symbol<void (*)()>(library, "gotoblas_dynamic_quit");
    const std::string detected = corename();
    if (detected != "Prescott" || std::getenv("OPENBLAS_CORETYPE") || !init || !quit) return detected;
    const char* core = nullptr;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")
        && __builtin_cpu_supports("avx512vl"))
        core = "SkylakeX";
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        core = "Haswell";
    if (!core) return detected;
    setenv("OPENBLAS_CORETYPE", core, 0);
    quit();
    init();
    unsetenv("OPENBLAS_CORETYPE"); // children (e.g. a Python reference run) detect for themselves
    return corename();
}

/// OpenBLAS's idle worker threads spin (sched_yield) for 2^28 TSC cycles, about 0.1 s, after every product before
/// they sleep. Between the engine's products its own work runs (softmax and write-out of the attention tiles on the
/// CPU worker pool, head statistics, norms), and a spinning worker takes a core from it: in a 2,048-token GPT-2 run
/// that keeps every head's statistics, a third of the CPU samples were sched_yield. Unless the user chose a timeout,
/// workers sleep after 2^18 cycles (about 0.1 ms): products that follow each other closely still find them awake.
/// Runs while the workers are stopped (openOpenBlas), so that the ones started for the next product read it.
void shortenWorkerSpin(void* library)
{
    const auto readEnv = symbol<void (*)()>(library, "openblas_read_env");
    if (std::getenv("OPENBLAS_THREAD_TIMEOUT") || !readEnv) return;
    setenv("OPENBLAS_THREAD_TIMEOUT", "18", 0);
    readEnv();
    unsetenv("OPENBLAS_THREAD_TIMEOUT"); // children (e.g. a Python reference run) keep OpenBLAS's default
}

OpenBlas openOpenBlas()
{
    OpenBlas blas;
    void* library = dlopen(AS_OPENBLAS_RUNTIME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        blas.failure = std::string("cannot open OpenBLAS (") + AS_OPENBLAS_RUNTIME + "): " + dlerror();
        return blas;
    }
    blas.sgemm = symbol<decltype(&cblas_sgemm)>(library, "cblas_sgemm");
    blas.sgemv = symbol<decltype(&cblas_sgemv)>(library, "cblas_sgemv");
    if (!blas.sgemm || !blas.sgemv || !dlsym(library, "openblas_get_corename")) {
        blas.failure = std::string(AS_OPENBLAS_RUNTIME)
            + " is not OpenBLAS: it lacks cblas_sgemm, cblas_sgemv or openblas_get_corename";
        return blas;
    }
    blas.kernels = selectKernels(library);
    // OpenBLAS starts its worker threads at load, and they spin for about 0.1 s before they sleep: that doubled the
    // CPU time of a short run. It starts them again for the first product large enough to split.
    if (const auto shutdown = symbol<int (*)()>(library, "blas_thread_shutdown_")) shutdown();
    shortenWorkerSpin(library);
    return blas;
}

/// Opened once, by the first caller. Its kernel fix-up sets an environment variable for a moment, which is safe only
/// while no other thread reads the environment: every program opens it before main (below) except the CLI, whose
/// only other threads, the CPU backend's workers, compute and wait while its first large product runs.
const OpenBlas& openBlas()
{
    static const OpenBlas blas = openOpenBlas();
    if (!blas.failure.empty()) throw Error(blas.failure);
    return blas;
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
    const OpenBlas& blas = openBlas();
    if (m == 1) {
        if (bTransposed)
            blas.sgemv(CblasRowMajor, CblasNoTrans, N, K, alpha, b, static_cast<blasint>(ldb), a, 1, beta, c, 1);
        else
            blas.sgemv(CblasRowMajor, CblasTrans, K, N, alpha, b, static_cast<blasint>(ldb), a, 1, beta, c, 1);
        return;
    }
    blas.sgemm(CblasRowMajor, CblasNoTrans, bTransposed ? CblasTrans : CblasNoTrans, M, N, K, alpha, a,
        static_cast<blasint>(lda), b, static_cast<blasint>(ldb), beta, c, static_cast<blasint>(ldc));
}

const std::string& blasKernels()
{
    return openBlas().kernels;
}

} // namespace attn

// Before main, while only this thread exists, in every program but those that define this (attnscope-cli: see
// openBlas()).
extern "C" const bool attnscope_opens_blas_lazily __attribute__((weak));

namespace attn {
namespace {
[[maybe_unused]] const bool kBlasOpened = [] {
    if (&attnscope_opens_blas_lazily) return false;
    try {
        blasKernels();
    } catch (const Error&) { // a missing library is reported by the first product that needs it
    }
    return true;
}();
} // namespace

} // namespace attn
