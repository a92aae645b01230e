// SPDX-License-Identifier: MIT
#pragma once
#include <QObject>
#include <QTimer>

#include <functional>

namespace attn::ui {

/// Collapses bursts of change notifications into one redraw, at most every ~40 ms.
class RedrawCoalescer : public QObject {
public:
    static constexpr int kIntervalMs = 40;

    RedrawCoalescer(QObject* parent, std::function<void()> redraw)
        : QObject(parent)
        , m_redraw(std::move(redraw)) {
        m_timer.setSingleShot(true);
        m_timer.setInterval(kIntervalMs);
        connect(&m_timer, &QTimer::timeout, this, [this] { m_redraw(); });
    }

    /// Redraws at most every `ms` from now on (kIntervalMs until then).
    void setInterval(int ms) { m_timer.setInterval(ms); }
    void schedule() {
        if (!m_timer.isActive()) m_timer.start();
    }
    /// Runs a scheduled redraw now (before a grab, in tests).
    void flush() {
        if (!m_timer.isActive()) return;
        m_timer.stop();
        m_redraw();
    }
    bool pending() const { return m_timer.isActive(); }

private:
    std::function<void()> m_redraw;
    QTimer m_timer;
};

} // namespace attn::ui
