// SPDX-License-Identifier: MIT
#pragma once
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <algorithm>
#include <ctime>

namespace attn::ui {

/// Measures how long the GUI event loop was kept from running: a precise timer ticks every few milliseconds and the
/// longest gap between two ticks is the worst stall (the GUI responsiveness probe and its test). On a loaded machine a
/// gap is also time spent waiting for a core, so the most CPU time the GUI thread itself used between two ticks is
/// kept beside it: the work done on the GUI thread, whatever the load.
class EventLoopStalls : public QObject {
public:
    explicit EventLoopStalls(int tickMs = 2, QObject* parent = nullptr)
        : QObject(parent)
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(tickMs);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            const double now = static_cast<double>(m_clock.nsecsElapsed()) / 1e6, cpu = threadCpuMs();
            m_worstMs = std::max(m_worstMs, now - m_lastMs);
            m_worstCpuMs = std::max(m_worstCpuMs, cpu - m_lastCpuMs);
            m_lastMs = now;
            m_lastCpuMs = cpu;
        });
    }

    void start()
    {
        m_worstMs = 0.0;
        m_lastMs = 0.0;
        m_worstCpuMs = 0.0;
        m_lastCpuMs = threadCpuMs();
        m_clock.start();
        m_timer.start();
    }
    /// The longest gap since start(), including the one still open.
    double stop()
    {
        m_timer.stop();
        m_worstCpuMs = std::max(m_worstCpuMs, threadCpuMs() - m_lastCpuMs);
        return std::max(m_worstMs, static_cast<double>(m_clock.nsecsElapsed()) / 1e6 - m_lastMs);
    }
    /// The most CPU time the GUI thread used between two ticks, up to the last stop().
    double worstCpuMs() const { return m_worstCpuMs; }

private:
    static double threadCpuMs()
    {
        timespec t {};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
    }

    QTimer m_timer;
    QElapsedTimer m_clock;
    double m_worstMs = 0.0;
    double m_lastMs = 0.0;
    double m_worstCpuMs = 0.0;
    double m_lastCpuMs = 0.0;
};

} // namespace attn::ui
