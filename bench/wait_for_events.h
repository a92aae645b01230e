// SPDX-License-Identifier: MIT
#pragma once
// The GUI probes' wait: the event loop runs, sleeping between events, until an action is done and has settled.
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QTimer>

#include <functional>

namespace attn::bench {

/// Runs the event loop until `done` holds (or `timeoutMs`), then `settleMs` more; false on timeout. The loop sleeps
/// between events (a 5 ms timer wakes it to look at `done`): processEvents(flags, ms) would spin and take a core from
/// the engine thread on this 2-core machine.
inline bool waitFor(const std::function<bool()>& done, int timeoutMs, int settleMs = 300)
{
    QTimer wake;
    wake.start(5);
    QDeadlineTimer deadline(timeoutMs);
    while (!done()) {
        if (deadline.hasExpired()) return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    }
    QDeadlineTimer settle(settleMs);
    while (!settle.hasExpired())
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    return true;
}

} // namespace attn::bench
