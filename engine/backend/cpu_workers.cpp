// SPDX-License-Identifier: MIT
#include "backend/cpu_workers.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace attn {
namespace {

class Workers {
public:
    Workers()
    {
        const unsigned n = std::max(1u, std::thread::hardware_concurrency()) - 1;
        for (unsigned i = 0; i < n; ++i)
            m_threads.emplace_back([this] { loop(); });
    }
    ~Workers()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        for (std::thread& t : m_threads)
            t.join();
    }

    void run(int64_t count, const std::function<void(int64_t)>& task, bool waitForTurn)
    {
        std::unique_lock turn(m_turn, std::defer_lock); // one job at a time
        if (waitForTurn)
            turn.lock();
        else
            static_cast<void>(turn.try_lock());
        if (m_threads.empty() || count <= 1 || !turn.owns_lock()) {
            for (int64_t i = 0; i < count; ++i)
                task(i);
            return;
        }
        {
            std::lock_guard lock(m_mutex);
            m_task = &task;
            m_count = count;
            m_next = 0;
            ++m_generation;
        }
        m_wake.notify_all();
        work(task, count);
        // Close the job: a worker the scheduler has not run yet (a loaded machine) stays out of it instead of being
        // waited for; only the workers that joined are.
        std::unique_lock lock(m_mutex);
        m_task = nullptr;
        m_done.wait(lock, [&] { return m_joined == 0; });
    }

private:
    void work(const std::function<void(int64_t)>& task, int64_t count)
    {
        for (int64_t i = m_next++; i < count; i = m_next++)
            task(i);
    }
    void loop()
    {
        uint64_t seen = 0;
        while (true) {
            const std::function<void(int64_t)>* task;
            int64_t count;
            {
                std::unique_lock lock(m_mutex);
                m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
                if (m_stop) return;
                seen = m_generation;
                task = m_task;
                count = m_count;
                if (!task) continue; // woke after the caller closed the job
                ++m_joined;
            }
            work(*task, count);
            std::lock_guard lock(m_mutex);
            if (--m_joined == 0) m_done.notify_one();
        }
    }

    std::vector<std::thread> m_threads;
    std::mutex m_turn, m_mutex;
    std::condition_variable m_wake, m_done;
    const std::function<void(int64_t)>* m_task = nullptr;
    int64_t m_count = 0;
    std::atomic<int64_t> m_next { 0 };
    int m_joined = 0; ///< workers inside the open job
    uint64_t m_generation = 0;
    bool m_stop = false;
};

Workers& workers()
{
    static Workers pool;
    return pool;
}

} // namespace

void parallelFor(int64_t count, const std::function<void(int64_t)>& task)
{
    workers().run(count, task, true);
}

void parallelForIfIdle(int64_t count, const std::function<void(int64_t)>& task)
{
    workers().run(count, task, false);
}

} // namespace attn
