// SPDX-License-Identifier: MIT
#pragma once
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <algorithm>

namespace attn::ui {

/// Measures how long the GUI event loop was kept from running: a precise timer ticks every few milliseconds and the
/// longest gap between two ticks is the worst stall (the GUI responsiveness probe and its test).
class EventLoopStalls : public QObject {
public:
    explicit EventLoopStalls(int tickMs = 2, QObject* parent = nullptr)
        : QObject(parent)
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(tickMs);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            const double now = static_cast<double>(m_clock.nsecsElapsed()) / 1e6;
            m_worstMs = std::max(m_worstMs, now - m_lastMs);
            m_lastMs = now;
        });
    }

    void start()
    {
        m_worstMs = 0.0;
        m_lastMs = 0.0;
        m_clock.start();
        m_timer.start();
    }
    /// The longest gap since start(), including the one still open.
    double stop()
    {
        m_timer.stop();
        return std::max(m_worstMs, static_cast<double>(m_clock.nsecsElapsed()) / 1e6 - m_lastMs);
    }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    double m_worstMs = 0.0;
    double m_lastMs = 0.0;
};

} // namespace attn::ui
