// SPDX-License-Identifier: MIT
#include "core/blas.h"

#include <cstdlib>
#include <cstring>

// Exported by OpenBLAS builds with DYNAMIC_ARCH (Debian's); weak so that another build simply skips the fix-up.
extern "C" {
char* openblas_get_corename(void) __attribute__((weak));
void gotoblas_dynamic_init(void) __attribute__((weak));
void gotoblas_dynamic_quit(void) __attribute__((weak));
}

namespace attn {
namespace {

/// OpenBLAS 0.3.21 (Debian 12) does not know CPUs newer than its release (e.g. family 6 model 0xCF, Emerald
/// Rapids) and falls back to its SSE3 "Prescott" kernels, 4 to 8 times slower than the CPU allows. When it did, and
/// the user has not chosen a core with OPENBLAS_CORETYPE, pick the kernels the CPU's features support and redo
/// OpenBLAS's own dynamic selection, which honours that variable.
std::string selectKernels()
{
    if (!openblas_get_corename) return "unknown";
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

} // namespace

const std::string& blasKernels()
{
    static const std::string name = selectKernels();
    return name;
}

} // namespace attn
