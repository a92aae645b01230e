// SPDX-License-Identifier: MIT
#pragma once
#include "backend/backend_registry.h"
#include "controller/engine_worker.h"

#include <QObject>
#include <QPointer>
#include <QThread>

#include <functional>
#include <memory>
#include <variant>

namespace attn::ui {

/// The GUI-thread face of the app's one engine thread. Each request gets an id; only the answer to the latest request
/// of its kind is passed on (stale answers are dropped). A new load or run cancels the older ones still in flight.
/// The main views use the typed requests; the other tabs (Decode, Alignment, Vision) send jobs through post().
class EngineController : public QObject {
    Q_OBJECT
public:
    explicit EngineController(ProviderFactory factory = openEngineProvider, QObject* parent = nullptr);
    ~EngineController() override;

    quint64 loadModel(const QString& path);
    /// `target`: the decoder side of an encoder-decoder.
    quint64 tokenize(const QString& text, bool target = false);
    /// `target`: the teacher-forced decoder text of an encoder-decoder (empty for other models).
    quint64 run(const QString& text, const QString& target = QString());
    /// A Caption tab request (image-to-text models). Opening or restarting abandons older caption requests still
    /// queued; steps queue up, and only the answer to the latest is passed on (it shows every step before it).
    quint64 caption(const attn::ui::CaptionRequest& request);
    /// Later loads and runs use `choice`; backendChanged() follows once the backend exists.
    void setBackend(attn::BackendChoice choice);
    /// The backend in use as last reported ("cpu: …", "vulkan: …"); empty before the first backendChanged().
    QString backendDescription() const { return m_backendDescription; }
    /// Frees the open model and every tab's engine state (a model the engine thread does not open, such as an image
    /// classifier, takes its place); the answers of every request sent before are dropped.
    void closeModel();

    /// Runs `job` on the engine thread after every request sent before it, with the engine's models, backend and
    /// tab state. `done` gets its value, or `error` the message of what it threw, on the GUI thread; neither runs
    /// when `client` is gone or another model was loaded or closed after this call (the job's model is closed).
    template <class T>
    void post(QObject* client, std::function<T(EngineContext&)> job, std::function<void(T)> done,
        std::function<void(const QString&)> error);

    /// Frees the engine state a tab keeps under `key` (EngineContext::setSession) once every request sent before has
    /// run: what a tab does when its model is closed.
    void dropSession(std::string key);

    /// Runs `compute` on the engine thread, then `done` here with its error's message ("" when it did not throw)
    /// unless `client` is gone by then: how the heatmaps derive a long input's tiles and overviews off the GUI thread
    /// (HeatmapView::Deriver).
    void derive(QObject* client, std::function<void()> compute, std::function<void(const QString&)> done);

    /// Abandons the load or run in flight (the worker checks between layers).
    void cancel();
    /// What jobs posted by clients poll besides their own cancel: `closing` is set when this controller goes.
    std::shared_ptr<const CancelBounds> cancelBounds() const { return m_cancel; }
    bool busy() const { return m_pendingLoad != 0 || m_pendingRun != 0 || m_pendingCaption != 0; }

signals:
    void modelLoaded(attn::ui::SummaryPtr summary);
    void tokenized(attn::ui::TokensPtr tokens, bool target);
    void runReady(attn::ui::RunPtr run);
    void captionReady(attn::ui::CaptionPtr caption);
    void failed(const QString& message);
    void cancelled();
    void progress(int step, int total);
    /// The latest run's views hold no matrices: `done` of `total` heads now have their statistics and thumbnails.
    void statsProgress(int done, int total);
    void busyChanged(bool busy);
    /// The backend now in use, and a plain notice such as "no Vulkan device (…): running on the CPU" or empty.
    void backendChanged(const QString& description, const QString& notice);
    /// A request ran on the CPU instead of the device (out of device memory, device lost).
    void backendNotice(const QString& message);

    // Internal: queued to the worker on the engine thread.
    void requestLoad(quint64 id, const QString& path);
    void requestTokenize(quint64 id, const QString& text, bool target);
    void requestRun(quint64 id, const QString& text, const QString& target);
    void requestCaption(quint64 id, const attn::ui::CaptionRequest& request);
    void requestBackend(quint64 id, int choice);
    void requestClose(quint64 id);

private:
    void submit(std::function<void(EngineContext&)> job);
    void finish(quint64 id);
    static void raise(std::atomic<quint64>& bound, quint64 value);

    QThread m_thread;
    EngineWorker* m_worker = nullptr; ///< lives on m_thread, deleted when it finishes
    std::shared_ptr<CancelBounds> m_cancel;
    quint64 m_nextId = 0;
    quint64 m_latestLoad = 0;
    quint64 m_latestTokenize[2] = { 0, 0 }; ///< per side: source, target
    quint64 m_latestRun = 0;
    quint64 m_pendingLoad = 0; ///< id of the load in flight, 0 when none
    quint64 m_pendingRun = 0;
    quint64 m_latestCaption = 0;
    quint64 m_pendingCaption = 0;
    quint64 m_latestBackend = 0;
    QString m_backendDescription;
};

template <class T>
void EngineController::post(QObject* client, std::function<T(EngineContext&)> job, std::function<void(T)> done,
    std::function<void(const QString&)> error) {
    const QPointer<QObject> guard(client);
    const quint64 model = m_latestLoad;
    submit([this, guard, model, job = std::move(job), done = std::move(done), error = std::move(error)](
               EngineContext& context) {
        using Outcome = std::variant<T, QString>;
        auto outcome = std::make_shared<Outcome>(QString());
        try {
            *outcome = job(context);
        } catch (const std::exception& e) { // the boundary: every engine error becomes a message
            *outcome = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            this,
            [this, guard, model, outcome, done, error] {
                if (!guard || model != m_latestLoad) return;
                if (auto* value = std::get_if<T>(outcome.get()))
                    done(std::move(*value));
                else if (error)
                    error(std::get<QString>(*outcome));
            },
            Qt::QueuedConnection);
    });
}

} // namespace attn::ui
