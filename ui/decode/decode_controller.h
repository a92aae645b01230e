// SPDX-License-Identifier: MIT
#pragma once
#include "decode/decode_worker.h"

#include <QObject>
#include <QThread>

namespace attn::ui {

/// The GUI-thread face of step-by-step decoding. It owns a decode engine thread whose worker holds its own Session,
/// and mirrors the worker's timeline in steps(). Step, Back, Force, Reset and a new prompt pause a running decode
/// first; Pause stops it before the next step begins (the step in flight, if any, still completes).
class DecodeController : public QObject {
    Q_OBJECT
public:
    explicit DecodeController(QObject* parent = nullptr);
    ~DecodeController() override;

    void open(const QString& path);
    void setSampling(const SamplerOptions& options);
    void prompt(const QString& text);
    void promptIds(const std::vector<int64_t>& ids);
    void step();
    void run();
    void pause();
    void back();
    /// Replaces the token at `position` by `token` (a what-if branch); a running decode continues from there. The
    /// timeline it replaces is kept as a branch. Prompt positions cannot be forced (failed() says so).
    void force(int64_t position, int64_t token);
    /// Other timelines of this prompt that a force left behind, each whole (prompt included), oldest first.
    const std::vector<std::vector<DecodeStepPtr>>& branches() const { return m_branches; }
    /// Goes over to branch `index`: the positions it shares with the current timeline stay, the rest is decoded as
    /// the branch had it (same tokens, origins and sampler states), and the current timeline becomes a branch.
    void switchToBranch(size_t index);
    void reset();
    /// Asks for the attention of the first `positions` positions; snapshotReady answers (stale ids are dropped).
    void requestSnapshot(int64_t positions);

    DecodeInfoPtr info() const { return m_info; }
    const std::vector<DecodeStepPtr>& steps() const { return m_steps; }
    bool running() const { return m_running; }
    /// Forward steps the worker has begun so far (counts steps that started after a Pause, if any did).
    quint64 stepsStarted() const { return m_run->stepsStarted.load(); }

signals:
    void opened(attn::ui::DecodeInfoPtr info);
    /// steps() changed: the first `keep` positions stayed, the rest are new.
    void timelineChanged(qint64 keep);
    void runningChanged(bool running);
    void ended(const QString& reason);
    void snapshotReady(qint64 positions, attn::ui::SnapshotPtr snapshot);
    void failed(const QString& message);
    void branchesChanged();

private:
    /// Keeps `timeline` as a branch unless it is empty or already one; returns whether it did.
    bool keepBranch(const std::vector<DecodeStepPtr>& timeline);
    void clearBranches();
    /// Ends a running chain before the next step; returns whether one was running.
    bool stopRun();
    template <class Fn> void post(Fn&& fn);

    QThread m_thread;
    DecodeWorker* m_worker = nullptr;
    std::shared_ptr<DecodeRunState> m_run;
    DecodeInfoPtr m_info;
    std::vector<DecodeStepPtr> m_steps;
    std::vector<std::vector<DecodeStepPtr>> m_branches;
    bool m_running = false;
    quint64 m_latestSnapshot = 0;
};

} // namespace attn::ui
