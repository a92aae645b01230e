// SPDX-License-Identifier: MIT
// What the Exact vs variant page computes for one head on a long input, with no model pass: a causal synthetic head
// (float32 N(0, 1) q, k, v as `mechanisms --synthetic` draws them, marked causal as a decoder's head is) through
// analyzeMechanism and the page's three maps (mechanismsMaps), per variant, each timed in wall and thread CPU. It
// isolates the head-switch cost of bench_mechanisms_switch_ui (whose first request runs the model's whole pass) so
// that it can be profiled (perf record, callgrind) in seconds. Not a test; see bench/README.md for the figures.
//
// usage: bench_mechanisms_variant_ui TOKENS [VARIANT ...]   (default: window:4 exact strided:64 performer:64:0)
#include "mechanisms/mechanism_report.h"
#include "mechanisms/mechanisms_maps.h"
#include "mechanisms/mechanisms_request.h"
#include "mechanisms_load_average.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

namespace {

using namespace attn;
using bench::loadAverage;

double threadCpuSeconds()
{
    timespec t {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_mechanisms_variant_ui TOKENS [VARIANT ...]\n");
        return 2;
    }
    const int64_t tokens = std::stoll(argv[1]);
    std::vector<std::string> variants(argv + 2, argv + argc);
    if (variants.empty()) variants = { "window:4", "exact", "strided:64", "performer:64:0" };
    ui::MechanismsResult r;
    r.request.synthetic = true;
    r.request.tokens = tokens;
    r.request.dk = 64;
    r.parts = ui::kComparePart;
    r.inputs = syntheticHeadInputs(tokens, 64, 0);
    r.inputs.causal = true;
    std::printf("%lld tokens, d 64, causal; load average %s\n", static_cast<long long>(tokens), loadAverage().c_str());
    for (const std::string& variant : variants) {
        r.request.variant = variant;
        const auto wall = std::chrono::steady_clock::now();
        const double cpu = threadCpuSeconds();
        r.report = analyzeMechanism(r.inputs, parseMechanism(variant));
        const double analyzed = threadCpuSeconds();
        r.maps = ui::mechanismsMaps(r);
        const double done = threadCpuSeconds();
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
        std::printf("%s: %.2f s wall, %.2f s CPU (analyzeMechanism %.2f s, maps %.2f s); kl_mean %.6g mass_kept %.6g "
                    "out_rel_err %.6g; load average %s\n",
            variant.c_str(), seconds, done - cpu, analyzed - cpu, done - analyzed, r.report.metrics.klMean,
            r.report.metrics.massKept, r.report.metrics.outRelErr, loadAverage().c_str());
        std::fflush(stdout);
    }
    return 0;
}
