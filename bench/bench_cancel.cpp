// SPDX-License-Identifier: MIT
// bench_cancel MODEL_DIR [REPEATS]: cancel latency of the longest operations (issue 20; goal 200 ms) on a decoder
// made by `bench/make_long_context_model.py DIR --family llama --layers 4 --heads 4 --width 128 --positions 8192`:
// an 8,192-token prefill, head importance over two 256-token inputs and the head atlas over 1,024-token lines. Each
// is cancelled REPEATS times (default 5) at delays spread over its first second, and the median and worst time from
// the request to its return are printed. The latency test (tests/engine/test_cancel_latency.cpp) checks a generous
// bound on the same operations.
#include "model/model_loader.h"
#include "support/cancel_timer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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
    for (const attn::test::LongOperation& op : attn::test::longOperations(*model))
        measure(op, repeats);
    return 0;
}
