// SPDX-License-Identifier: MIT
#include "controller/engine_worker.h"

#include "backend/backend_registry.h"
#include "core/error.h"

#include <algorithm>

namespace attn::ui {

EngineWorker::EngineWorker(ProviderFactory factory, std::shared_ptr<const CancelBounds> cancel)
    : m_factory(std::move(factory))
    , m_cancel(std::move(cancel)) { }

EngineWorker::~EngineWorker() = default;

ProgressFn EngineWorker::progressFor(quint64 id, const std::atomic<quint64>& cancelUpTo) {
    return [this, id, &cancelUpTo](int step, int total) {
        if (id <= cancelUpTo.load()) return false;
        if (step >= 0) emit progress(id, step, total); // a negative step only asks (cancelCheck)
        return true;
    };
}

template <class Job> void EngineWorker::guarded(quint64 id, Job&& job) {
    try {
        job();
    } catch (const Cancelled&) {
        emit cancelled(id);
    } catch (const std::exception& e) {
        emit failed(id, QString::fromStdString(e.what()));
    }
}

void EngineWorker::loadModel(quint64 id, const QString& path) {
    guarded(id, [&] {
        // The old model goes first (the main views' and every tab's hold on it) so that two large models never sit
        // in memory together.
        m_provider.reset();
        m_context.dropSessions();
        const ProgressFn progress = progressFor(id, m_cancel->loadsUpTo);
        if (!progress(0, 1)) throw Cancelled();
        m_provider = m_factory(path.toStdString(), m_context.models(), progress);
        auto summary = std::make_shared<ModelSummary>(m_provider->summary());
        if (const auto& backend = m_context.backend()) {
            m_provider->setBackend(backend);
            summary->backend = describeBackend(*backend);
        }
        emit modelLoaded(id, std::move(summary));
    });
}

void EngineWorker::tokenize(quint64 id, const QString& text, bool target) {
    guarded(id, [&] {
        if (!m_provider) throw Error("no model is open");
        emit tokenized(id,
            std::make_shared<const std::vector<TokenChip>>(m_provider->tokenize(text.toStdString(), target)), target);
    });
}

void EngineWorker::run(quint64 id, const QString& text, const QString& target) {
    guarded(id, [&] {
        if (!m_provider) throw Error("no model is open");
        const ProgressFn progress = progressFor(id, m_cancel->runsUpTo);
        if (!progress(0, 1)) throw Cancelled();
        RunPtr result = m_provider->runPair(text.toStdString(), target.toStdString(), progress);
        emit runReady(id, result);
        summarize(id, std::move(result), 0);
    });
}

void EngineWorker::summarize(quint64 id, RunPtr run, int index) {
    std::vector<SnapshotPtr> derived;
    for (const auto& [kind, snapshot] : run->views)
        if (snapshot->source()) derived.push_back(snapshot);
    if (derived.empty() || id <= m_cancel->runsUpTo.load()) return;
    const int64_t heads = derived.front()->numHeads();
    const int total = static_cast<int>(derived.front()->numLayers() * heads);
    if (index >= total) return;
    // Heads the forward already summarized (SummaryCollector: all of them on the CPU) need no pass, and one report
    // covers them: a report per layer rebuilt the grid and the statistics table twelve times before the first head
    // could be drawn (0.8 s at 4,096 tokens).
    const auto known = [&](int head) {
        return std::all_of(derived.begin(), derived.end(),
            [&](const SnapshotPtr& s) { return s->source()->hasSummary(head / heads, head % heads); });
    };
    int next = index;
    while (next < total && known(next))
        ++next;
    if (next > index) {
        emit statsProgress(id, next, total);
        if (next == total) return;
        index = next;
    }
    bool done = false;
    guarded(id, [&] {
        for (const SnapshotPtr& s : derived)
            (void)s->stats(index / heads, index % heads); // one streamed pass: statistics and thumbnail
        emit statsProgress(id, index + 1, total);
        done = true;
    });
    if (!done) return; // failed() said why once; the other heads are not tried again and again
    QMetaObject::invokeMethod(
        this, [this, id, run = std::move(run), index] { summarize(id, run, index + 1); }, Qt::QueuedConnection);
}

void EngineWorker::caption(quint64 id, const CaptionRequest& request) {
    guarded(id, [&] {
        if (!m_provider) throw Error("no model is open");
        const ProgressFn progress = progressFor(id, m_cancel->runsUpTo);
        if (!progress(0, 1)) throw Cancelled();
        emit captionReady(id, m_provider->caption(request, progress));
    });
}

void EngineWorker::closeModel(quint64) {
    m_provider.reset();
    m_context.dropSessions();
}

void EngineWorker::runJob(const std::function<void(EngineContext&)>& job) {
    job(m_context);
}

void EngineWorker::setBackend(quint64 id, int choice) {
    guarded(id, [&] {
        // Runs on this thread: the backend's notices (runtime fallbacks) are queued to the GUI from here.
        const NoticeSink notice
            = [this](const std::string& message) { emit backendNotice(QString::fromStdString(message)); };
        auto selection = createBackend(static_cast<BackendChoice>(choice), notice);
        std::string said;
        if (selection) {
            said = selection->notice;
        } else {
            said = selection.error() + ": running on the CPU";
            selection = createBackend(BackendChoice::Cpu, notice);
        }
        m_context.setBackend(selection->backend);
        if (m_provider) m_provider->setBackend(selection->backend);
        emit backendChanged(
            id, QString::fromStdString(describeBackend(*selection->backend)), QString::fromStdString(said));
    });
}

} // namespace attn::ui
