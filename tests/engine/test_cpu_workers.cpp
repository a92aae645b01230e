// SPDX-License-Identifier: MIT
// The CPU worker pool: every task once, and parallelForIfIdle never waits for a pool another thread's job holds.
#include "backend/cpu_workers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

namespace attn {
namespace {

TEST(CpuWorkers, EveryTaskRunsExactlyOnceOnEitherEntry)
{
    for (const bool ifIdle : { false, true }) {
        std::vector<std::atomic<int>> runs(1000);
        const auto task = [&](int64_t i) { ++runs[static_cast<size_t>(i)]; };
        if (ifIdle)
            parallelForIfIdle(static_cast<int64_t>(runs.size()), task);
        else
            parallelFor(static_cast<int64_t>(runs.size()), task);
        for (size_t i = 0; i < runs.size(); ++i)
            EXPECT_EQ(runs[i].load(), 1) << "task " << i << (ifIdle ? " (if idle)" : "");
    }
}

TEST(CpuWorkers, IfIdleRunsOnTheCallingThreadWhileAnotherThreadsJobHoldsThePool)
{
    std::atomic<bool> started { false }, release { false };
    // Another thread's job holds the pool until released (its tasks block).
    std::thread holder([&] {
        parallelFor(2, [&](int64_t) {
            started = true;
            while (!release)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
        });
    });
    while (!started)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    auto call = std::async(std::launch::async, [] {
        const std::thread::id caller = std::this_thread::get_id();
        std::atomic<int> elsewhere { 0 }, runs { 0 };
        parallelForIfIdle(16, [&](int64_t) {
            ++runs;
            if (std::this_thread::get_id() != caller) ++elsewhere;
        });
        return std::pair<int, int>(runs, elsewhere);
    });
    // Waiting for its turn would block until the holder is released: the call must finish first, on its own thread.
    const bool finished = call.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
    release = true;
    holder.join();
    ASSERT_TRUE(finished) << "parallelForIfIdle waited for the pool held by another thread";
    const auto [runs, elsewhere] = call.get();
    EXPECT_EQ(runs, 16);
    EXPECT_EQ(elsewhere, 0);
}

} // namespace
} // namespace attn
