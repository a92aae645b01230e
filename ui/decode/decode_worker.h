// SPDX-License-Identifier: MIT
#pragma once
#include "decode/decode_engine.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <vector>

namespace attn::ui {

using DecodeStepList = std::shared_ptr<const std::vector<DecodeStepPtr>>;
using DecodeInfoPtr = std::shared_ptr<const DecodeModelInfo>;

/// Written by the controller, read by the worker: a run chain tagged `generation` keeps going only while the
/// generation is current, so Pause (or any other request) stops it before the next step starts.
struct DecodeRunState {
    std::atomic<quint64> generation { 0 };
    std::atomic<quint64> stepsStarted { 0 }; ///< forward steps begun by the worker (Pause latency in tests)
    std::atomic<quint64> latestSnapshot { 0 }; ///< older snapshot requests are skipped, not built
};

/// Lives on the decode engine thread and alone owns the DecodeEngine. Every request is one queued slot call, and
/// Run re-posts one step at a time to itself, so Pause, Back and Force interleave between steps.
class DecodeWorker : public QObject {
    Q_OBJECT
public:
    explicit DecodeWorker(std::shared_ptr<DecodeRunState> run);
    ~DecodeWorker() override;

public slots:
    void open(const QString& path);
    void setSampling(float temperature, float topP, qint64 topK, quint64 seed);
    void promptText(const QString& text);
    void promptIds(const std::vector<int64_t>& ids);
    void step();
    void runChain(quint64 generation);
    void back();
    void force(qint64 position, qint64 token);
    void restore(qint64 keep, attn::ui::DecodeStepList steps);
    void clear();
    void snapshot(quint64 id, qint64 positions);

signals:
    void opened(attn::ui::DecodeInfoPtr info);
    /// The timeline now holds exactly the first `keep` positions of the previous one, then `added`.
    void timelineChanged(qint64 keep, attn::ui::DecodeStepList added);
    /// step() found nothing more to decode (stop token or full context).
    void ended(const QString& reason);
    void runStopped(quint64 generation);
    void snapshotReady(quint64 id, attn::ui::SnapshotPtr snapshot);
    void failed(const QString& message);

private:
    /// Runs job() and turns any exception into failed(message); false when it threw.
    template <class Job> bool guarded(Job&& job);
    /// One sampled step; false when decoding has ended.
    bool stepOnce();

    std::shared_ptr<DecodeRunState> m_run;
    std::unique_ptr<DecodeEngine> m_engine;
};

} // namespace attn::ui
