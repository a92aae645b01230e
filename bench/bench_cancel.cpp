// SPDX-License-Identifier: MIT
// bench_cancel MODEL_DIR [REPEATS]: cancel latency of the longest operations (issue 20; goal 200 ms) on a decoder
// made by `bench/make_long_context_model.py DIR --family llama --layers 4 --heads 4 --width 128 --positions 8192`:
// an 8,192-token prefill, head importance over two 256-token inputs and the head atlas over 1,024-token lines. Each
// is cancelled REPEATS times (default 5) at delays spread over its first second, and the median and worst time from
// the request to its return are printed. Then each runs once more for 3 s with a poll that only watches the clocks,
// and the longest stretch between two polls is printed, in wall time and in the polling thread's CPU time: on a loaded
// machine a cancel waits for that stretch plus the waits for a core, so the CPU figure is the one the code controls
// (OpenBLAS's own threads are not in it). The latency test (tests/engine/test_cancel_latency.cpp) checks a generous
// bound on the same operations.
#include "model/model_loader.h"
#include "support/cancel_timer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

namespace {

void measure(const attn::test::LongOperation& op, int repeats)
{
    std::vector<double> latencies;
    int finished = 0;
    for (int r = 0; r < repeats; ++r) {
        const auto delay = std::chrono::milliseconds(100 + 800 * r / std::max(1, repeats - 1));
        const attn::test::CancelMeasurement m = attn::test::measureCancel(op.run, delay);
        if (m.cancelled)
            latencies.push_back(m.latencyMs);
        else
            ++finished;
    }
    std::sort(latencies.begin(), latencies.end());
    if (latencies.empty()) {
        std::printf("%-16s never cancelled (%d runs finished first)\n", op.name, finished);
        return;
    }
    std::printf("%-16s median %7.1f ms   worst %7.1f ms   (%zu cancels%s)\n", op.name, latencies[latencies.size() / 2],
        latencies.back(), latencies.size(), finished ? ", some runs finished first" : "");
}

double threadCpuMs()
{
    timespec t {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

/// The longest wall and thread CPU time between two consecutive polls (or from the start to the first) over the
/// operation's first 3 s, after which the poll cancels it.
void measureLongestStretch(const attn::test::LongOperation& op)
{
    using Clock = std::chrono::steady_clock;
    const Clock::time_point start = Clock::now();
    Clock::time_point last = start;
    double longest = 0.0;
    int64_t polls = 0;
    double lastCpu = threadCpuMs(), longestCpu = 0.0;
    const auto poll = [&] {
        const Clock::time_point now = Clock::now();
        const double cpu = threadCpuMs();
        longestCpu = std::max(longestCpu, cpu - lastCpu);
        lastCpu = cpu;
        longest = std::max(longest, std::chrono::duration<double, std::milli>(now - last).count());
        last = now;
        ++polls;
        return now - start > std::chrono::seconds(3);
    };
    try {
        op.run(poll);
    } catch (const attn::Cancelled&) {
    }
    std::printf(
        "%-16s longest stretch between polls %7.1f ms wall, %7.1f ms of its thread's CPU   (%lld polls in %.1f s)\n",
        op.name, longest, longestCpu, static_cast<long long>(polls),
        std::chrono::duration<double>(Clock::now() - start).count());
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_cancel MODEL_DIR [REPEATS]\n");
        return 2;
    }
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
    const auto model = std::dynamic_pointer_cast<const attn::DecoderModel>(attn::loadModel(argv[1]));
    if (!model) {
        std::fprintf(stderr, "bench_cancel: %s is not a decoder\n", argv[1]);
        return 2;
    }
    std::printf("%s\n", model->description().c_str());
    const std::vector<attn::test::LongOperation> operations = attn::test::longOperations(*model);
    for (const attn::test::LongOperation& op : operations)
        measure(op, repeats);
    for (const attn::test::LongOperation& op : operations)
        measureLongestStretch(op);
    return 0;
}
