// SPDX-License-Identifier: MIT
#pragma once
// Cancel latency: how long an engine operation keeps running after cancellation is requested through its
// cancelRequested poll (ForwardOptions::cancelRequested), and the longest operations to measure it on. Shared by the
// latency test and bench/bench_cancel.
#include "analysis/head_atlas.h"
#include "analysis/head_importance.h"
#include "core/error.h"
#include "model/kv_cache.h"
#include "model/model.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

namespace attn::test {

struct CancelMeasurement {
    bool cancelled = false; ///< the operation stopped with Cancelled (false: it finished first, or failed)
    double latencyMs = 0.0; ///< from the request to the operation's return
    int64_t polls = 0; ///< how often the operation asked before it stopped
};

/// Runs operation(poll) on another thread. Once the operation has polled for the first time (it is under way), waits
/// `delay` more and requests cancellation; returns when the operation has returned.
inline CancelMeasurement measureCancel(
    const std::function<void(const std::function<bool()>& poll)>& operation, std::chrono::milliseconds delay)
{
    using Clock = std::chrono::steady_clock;
    std::atomic<bool> cancel { false }, finished { false };
    std::atomic<int64_t> polls { 0 };
    const std::function<bool()> poll = [&] {
        polls.fetch_add(1);
        return cancel.load();
    };
    CancelMeasurement m;
    Clock::time_point stopped;
    std::thread worker([&] {
        try {
            operation(poll);
        } catch (const Cancelled&) {
            m.cancelled = true;
        } catch (...) { // a failure is not a cancellation: m.cancelled stays false
        }
        stopped = Clock::now();
        finished.store(true);
    });
    while (polls.load() == 0 && !finished.load())
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(delay);
    const Clock::time_point requested = Clock::now();
    cancel.store(true);
    worker.join();
    m.latencyMs = std::chrono::duration<double, std::milli>(stopped - requested).count();
    m.polls = polls.load();
    return m;
}

using CancellableOperation = std::function<void(const std::function<bool()>& poll)>;

struct LongOperation {
    const char* name;
    CancellableOperation run;
};

/// n token ids below `vocab`, a different sequence per salt.
inline std::vector<int64_t> syntheticTokens(int64_t n, int64_t salt, int64_t vocab)
{
    std::vector<int64_t> ids(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
        ids[static_cast<size_t>(i)] = (i * 7919 + salt * 104729) % vocab;
    return ids;
}

/// The operations issue 20 names, on `model` (kept alive by the caller): a prefill of min(8192, max positions)
/// tokens without attention (as the GUI runs long inputs: attention is derived later from the cached Q/K), head
/// importance over two 256-token inputs (17 passes each on a 4 x 4 model) and the head atlas over 64 lines of 1,024
/// tokens, as `attnscope-cli atlas` runs a corpus (a pass with attention, then its scores).
inline std::vector<LongOperation> longOperations(const DecoderModel& model)
{
    const ModelConfig& c = model.config();
    const int64_t vocab = c.vocabSize, prefill = std::min<int64_t>(8192, c.maxPositions);
    return {
        { "prefill",
            [&model, vocab, prefill](const std::function<bool()>& poll) {
                KvCache cache = model.newCache();
                ForwardOptions o;
                o.wantAttention = false;
                o.lastLogitsOnly = true;
                o.cancelRequested = poll;
                model.forward(cache, syntheticTokens(prefill, 0, vocab), o);
            } },
        { "head importance",
            [&model, vocab](const std::function<bool()>& poll) {
                ForwardOptions o;
                o.cancelRequested = poll;
                headImportance(model, { syntheticTokens(256, 2, vocab), syntheticTokens(256, 3, vocab) }, o);
            } },
        { "atlas",
            [&model, &c, vocab](const std::function<bool()>& poll) {
                HeadAtlas atlas(c.numLayers, c.numHeads);
                ForwardOptions o;
                o.cancelRequested = poll;
                o.lastLogitsOnly = true;
                for (int64_t line = 0; line < 64; ++line) {
                    KvCache cache = model.newCache();
                    const std::vector<int64_t> ids = syntheticTokens(1024, line, vocab);
                    atlas.add(ids, model.forward(cache, ids, o).attention, poll);
                    if (poll()) throw Cancelled(); // the corpus loop's own check between lines
                }
            } },
    };
}

} // namespace attn::test
