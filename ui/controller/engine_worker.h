// SPDX-License-Identifier: MIT
#pragma once
#include "controller/attention_provider.h"
#include "service/engine_context.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

namespace attn::ui {

using SummaryPtr = std::shared_ptr<const ModelSummary>;
using TokensPtr = std::shared_ptr<const std::vector<TokenChip>>;

/// Shared by the controller (writer) and the worker (reader): a load or run whose id is <= the matching bound is
/// abandoned before it starts or between its steps. Tokenizing is quick and never cancelled.
struct CancelBounds {
    std::atomic<quint64> loadsUpTo { 0 };
    std::atomic<quint64> runsUpTo { 0 };
    /// Set when the controller is destroyed: every job still running stops at its next cancel check, or the
    /// controller's destructor would wait for it (a Mechanisms request on a 4k-token input ran for minutes).
    std::atomic<bool> closing { false };
};

/// Lives on the engine thread, the app's only one, and alone owns the models (through its EngineContext), the
/// backend and every tab's engine-side state. Requests arrive as queued slot calls tagged with an id; every result
/// goes back tagged with the same id. Tabs other than the main views send jobs (runJob) through the controller.
class EngineWorker : public QObject {
    Q_OBJECT
public:
    EngineWorker(ProviderFactory factory, std::shared_ptr<const CancelBounds> cancel);
    ~EngineWorker() override;

public slots:
    void loadModel(quint64 id, const QString& path);
    void tokenize(quint64 id, const QString& text, bool target);
    void run(quint64 id, const QString& text, const QString& target);
    /// The Caption tab's request; cancelled like a run.
    void caption(quint64 id, const attn::ui::CaptionRequest& request);
    /// `choice` is an attn::BackendChoice. Vulkan without a device runs on the CPU and says so in the notice.
    void setBackend(quint64 id, int choice);
    /// Frees the model and every tab's engine state.
    void closeModel(quint64 id);
    /// A tab's job, run after the requests sent before it; it reports back by itself (EngineController::post).
    void runJob(const std::function<void(attn::EngineContext&)>& job);

signals:
    /// `done` of `total` heads of run `id` have their statistics and thumbnails (derived runs only).
    void statsProgress(quint64 id, int done, int total);
    void modelLoaded(quint64 id, attn::ui::SummaryPtr summary);
    void tokenized(quint64 id, attn::ui::TokensPtr tokens, bool target);
    void runReady(quint64 id, attn::ui::RunPtr run);
    void captionReady(quint64 id, attn::ui::CaptionPtr caption);
    void failed(quint64 id, const QString& message);
    void cancelled(quint64 id);
    void progress(quint64 id, int step, int total);
    /// The backend now in use ("vulkan: <device>") and what to tell the user about the choice (or empty).
    void backendChanged(quint64 id, const QString& description, const QString& notice);
    /// A request fell back to the CPU at run time (out of device memory, device lost).
    void backendNotice(const QString& message);

private:
    /// Streams the statistics of head `index` (layer-major) of every derived view of `run`, then posts itself for
    /// the next head, so that other requests interleave; a newer run or load ends it.
    void summarize(quint64 id, RunPtr run, int index);
    ProgressFn progressFor(quint64 id, const std::atomic<quint64>& cancelUpTo);
    /// Runs job(); turns Cancelled into cancelled(id) and any other exception into failed(id, message).
    template <class Job> void guarded(quint64 id, Job&& job);

    ProviderFactory m_factory;
    std::shared_ptr<const CancelBounds> m_cancel;
    EngineContext m_context; ///< the model registry, the backend (null until setBackend: the CPU core), tab state
    std::unique_ptr<AttentionProvider> m_provider;
};

} // namespace attn::ui
