// SPDX-License-Identifier: MIT
#pragma once
#include "decode/decode_snapshot.h"
#include "model/attention_snapshot.h"
#include "session/decode_step.h"
#include "session/sampler.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <vector>

namespace attn::ui {

class EngineController;

using DecodeStepList = std::shared_ptr<const std::vector<DecodeStepPtr>>;
using DecodeInfoPtr = std::shared_ptr<const DecodeModelInfo>;

/// The GUI-thread face of step-by-step decoding: a client of the app's one engine (EngineController::post). Its
/// DecodeTimeline (engine/session) lives on the engine thread, on the model copy the other tabs share, and computes
/// with the backend chosen for the app; this controller mirrors the timeline in steps(). Step, Back, Force, Reset
/// and a new prompt pause a running decode first; Pause stops it before the next step begins (the step in flight,
/// if any, still completes). Run sends one step at a time, so the other tabs' requests interleave with it.
class DecodeController : public QObject {
    Q_OBJECT
public:
    /// `engine`: the app's engine; null gives this controller an engine of its own (a tab used alone, in tests).
    explicit DecodeController(EngineController* engine = nullptr, QObject* parent = nullptr);
    ~DecodeController() override;

    void open(const QString& path);
    /// Forgets the model (it is no longer the open one): nothing more is decoded until open().
    void close();
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
    /// Asks for the attention of the first `positions` positions; snapshotReady answers (stale ids are dropped),
    /// after stepRowsReady with the last position's rows when its step captured none.
    void requestSnapshot(int64_t positions);

    /// The engine the timeline lives on (the app's, or this controller's own).
    EngineController* engine() const { return m_engine; }
    DecodeInfoPtr info() const { return m_info; }
    const std::vector<DecodeStepPtr>& steps() const { return m_steps; }
    bool running() const { return m_running; }
    /// Forward steps the engine has begun so far (counts steps that started after a Pause, if any did).
    quint64 stepsStarted() const { return m_stepsStarted->load(); }

signals:
    void opened(attn::ui::DecodeInfoPtr info);
    /// steps() changed: the first `keep` positions stayed, the rest are new.
    void timelineChanged(qint64 keep);
    void runningChanged(bool running);
    void ended(const QString& reason);
    void snapshotReady(qint64 positions, attn::ui::SnapshotPtr snapshot);
    /// Every head's attention row of `position`, derived on the engine thread (the strip of a step that has no rows).
    void stepRowsReady(qint64 position, attn::ui::StepRowsPtr rows);
    void failed(const QString& message);
    void branchesChanged();

private:
    /// What a timeline job hands back: the first `keep` positions stayed, `added` follow (keep -1: the timeline did
    /// not change); `ended` says why step() found nothing more to decode (empty when it did not end).
    struct Change {
        int64_t keep = -1;
        std::vector<DecodeStepPtr> added;
        QString ended;
        bool newPrompt = false; ///< a prompt replaced the timeline: the branches of the old one go
    };
    /// Runs `edit` on the engine thread's timeline, then applies its change here; `then` runs after it applied.
    template <class Edit> void edit(Edit&& edit, std::function<void(const Change&)> then = {});
    void apply(const Change& change);
    /// Starts over from the prompt `tokens(timeline)` gives (on the engine thread).
    template <class Tokens> void startPrompt(Tokens&& tokens);
    /// Posts one step; a `chained` one (Run) decodes a batch of steps, goes on with the next batch when it arrives,
    /// and stops on the engine thread before any step that begins after the run stopped.
    void runNext(quint64 generation, bool chained);
    /// Keeps `timeline` as a branch unless it is empty or already one; returns whether it did.
    bool keepBranch(const std::vector<DecodeStepPtr>& timeline);
    void clearBranches();
    /// Ends a running chain before the next step; returns whether one was running.
    bool stopRun();

    EngineController* m_engine;
    std::shared_ptr<std::atomic<quint64>> m_stepsStarted;
    /// The generation whose queued steps may run (read on the engine thread); 0 once a run ended there.
    std::shared_ptr<std::atomic<quint64>> m_stepToken;
    DecodeInfoPtr m_info;
    std::vector<DecodeStepPtr> m_steps;
    std::vector<std::vector<DecodeStepPtr>> m_branches;
    bool m_running = false;
    quint64 m_generation = 0; ///< a run chain goes on only while its generation is current
    quint64 m_opened = 0; ///< jobs sent for an earlier open() are not applied
    quint64 m_latestSnapshot = 0;
};

} // namespace attn::ui
