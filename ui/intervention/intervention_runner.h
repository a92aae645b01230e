// SPDX-License-Identifier: MIT
#pragma once
// Requests of the Intervene, Logit lens and Head atlas tabs on the one engine thread (EngineController::post): each
// computes from the kept unmodified pass of the main input, reports its layers and can be cancelled; only the latest
// request's answer arrives, and a newer one cancels the older still running.
#include "controller/engine_controller.h"
#include "intervention/kept_run.h"

#include <QObject>
#include <QPointer>
#include <QString>

class QProgressBar;
class QPushButton;

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace attn::ui {

class InterventionRunner : public QObject {
    Q_OBJECT
public:
    /// Runners given the same `sessionKey` share one kept pass.
    InterventionRunner(EngineController* engine, std::string sessionKey, QObject* parent = nullptr);

    /// Runs `compute` on the kept pass of `tokens` of the model at `modelPath` (made first when needed); `done` gets
    /// its value on the GUI thread.
    template <class T>
    void request(const QString& modelPath, std::vector<int64_t> tokens,
        std::function<T(const KeptRun&, const RerunHooks&)> compute, std::function<void(T)> done);
    /// Runs `compute` on the engine thread with its context (passes besides the kept one use its backend), with the
    /// progress, cancel and answer of request().
    template <class T>
    void post(std::function<T(EngineContext&, const RerunHooks&)> compute, std::function<void(T)> done);
    /// The engine-thread session the kept pass is under.
    const std::string& sessionKey() const { return m_key; }
    /// Stops the request in flight (cancelled() follows).
    void cancel();
    /// Frees the kept pass (another model is opening); answers of earlier requests are dropped.
    void forget();
    bool busy() const { return m_pending != 0; }
    /// `bar` shows the layers of the request in flight (hidden otherwise); `cancel` is enabled then and cancels it.
    void showProgressIn(QProgressBar* bar, QPushButton* cancel);

signals:
    void failed(const QString& message);
    void cancelled();
    /// Layers of the current pass done (the unmodified pass first when it is not kept yet, then the re-runs).
    void progress(int done, int total);
    void busyChanged(bool busy);

private:
    /// Marks request `id` sent; returns the hooks that report its progress and poll its cancel.
    RerunHooks start(quint64 id);
    /// Request `id` ended: true when it is still the latest (its answer is to be shown).
    bool settle(quint64 id);
    void fail(quint64 id, const QString& message);

    EngineController* m_engine = nullptr;
    std::string m_key;
    std::shared_ptr<std::atomic<quint64>> m_cancelUpTo; ///< requests with an id <= this stop at their next layer
    quint64 m_latest = 0;
    quint64 m_pending = 0;
};

template <class T>
void InterventionRunner::request(const QString& modelPath, std::vector<int64_t> tokens,
    std::function<T(const KeptRun&, const RerunHooks&)> compute, std::function<void(T)> done)
{
    post<T>([key = m_key, path = modelPath.toStdString(), tokens = std::move(tokens), compute = std::move(compute)](
                EngineContext& context,
                const RerunHooks& hooks) { return compute(*keptRun(context, key, path, tokens, hooks), hooks); },
        std::move(done));
}

template <class T>
void InterventionRunner::post(std::function<T(EngineContext&, const RerunHooks&)> compute, std::function<void(T)> done)
{
    const quint64 id = ++m_latest;
    const RerunHooks hooks = start(id);
    m_engine->post<T>(
        this, [compute = std::move(compute), hooks](EngineContext& context) { return compute(context, hooks); },
        [this, id, done = std::move(done)](T value) {
            if (settle(id)) done(std::move(value));
        },
        [this, id](const QString& message) { fail(id, message); });
}

} // namespace attn::ui
