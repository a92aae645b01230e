// SPDX-License-Identifier: MIT
#include "controller/engine_controller.h"

namespace attn::ui {

EngineController::EngineController(ProviderFactory factory, QObject* parent)
    : QObject(parent)
    , m_cancel(std::make_shared<CancelBounds>()) {
    qRegisterMetaType<attn::ui::SummaryPtr>("attn::ui::SummaryPtr");
    qRegisterMetaType<attn::ui::TokensPtr>("attn::ui::TokensPtr");
    qRegisterMetaType<attn::ui::SnapshotPtr>("attn::ui::SnapshotPtr");
    qRegisterMetaType<attn::ui::RunPtr>("attn::ui::RunPtr");
    qRegisterMetaType<attn::ui::CaptionPtr>("attn::ui::CaptionPtr");
    qRegisterMetaType<attn::ui::CaptionRequest>("attn::ui::CaptionRequest");

    m_thread.setObjectName("engine");
    auto* worker = m_worker = new EngineWorker(std::move(factory), m_cancel);
    worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, worker, &QObject::deleteLater);
    connect(this, &EngineController::requestLoad, worker, &EngineWorker::loadModel);
    connect(this, &EngineController::requestTokenize, worker, &EngineWorker::tokenize);
    connect(this, &EngineController::requestRun, worker, &EngineWorker::run);
    connect(this, &EngineController::requestBackend, worker, &EngineWorker::setBackend);
    connect(this, &EngineController::requestCaption, worker, &EngineWorker::caption);
    connect(this, &EngineController::requestClose, worker, &EngineWorker::closeModel);

    connect(worker, &EngineWorker::modelLoaded, this, [this](quint64 id, SummaryPtr summary) {
        if (id != m_latestLoad) return;
        finish(id);
        emit modelLoaded(std::move(summary));
    });
    connect(worker, &EngineWorker::tokenized, this, [this](quint64 id, TokensPtr tokens, bool target) {
        if (id == m_latestTokenize[target] && id > m_latestLoad) emit tokenized(std::move(tokens), target);
    });
    connect(worker, &EngineWorker::runReady, this, [this](quint64 id, RunPtr run) {
        if (id != m_latestRun || m_latestRun < m_latestLoad) return;
        finish(id);
        emit runReady(std::move(run));
    });
    connect(worker, &EngineWorker::captionReady, this, [this](quint64 id, CaptionPtr caption) {
        if (id == m_pendingCaption) finish(id);
        if (id != m_latestCaption || m_latestCaption < m_latestLoad) return;
        emit captionReady(std::move(caption));
    });
    connect(worker, &EngineWorker::backendChanged, this,
        [this](quint64 id, const QString& description, const QString& notice) {
            if (id != m_latestBackend) return;
            m_backendDescription = description;
            emit backendChanged(description, notice);
        });
    connect(worker, &EngineWorker::backendNotice, this, &EngineController::backendNotice);
    connect(worker, &EngineWorker::statsProgress, this, [this](quint64 id, int done, int total) {
        if (id == m_latestRun && m_latestRun > m_latestLoad) emit statsProgress(done, total);
    });
    connect(worker, &EngineWorker::failed, this, [this](quint64 id, const QString& message) {
        const bool current = id == m_latestLoad || id == m_latestRun || id == m_latestTokenize[0]
            || id == m_latestTokenize[1] || id == m_latestBackend || id == m_latestCaption;
        finish(id);
        if (current) emit failed(message);
    });
    connect(worker, &EngineWorker::cancelled, this, [this](quint64 id) {
        const bool current = id == m_latestLoad || id == m_latestRun || id == m_latestCaption;
        finish(id);
        if (current) emit cancelled();
    });
    connect(worker, &EngineWorker::progress, this, [this](quint64 id, int step, int total) {
        if (id == m_pendingLoad || id == m_pendingRun || id == m_pendingCaption) emit progress(step, total);
    });
    m_thread.start();
}

EngineController::~EngineController() {
    m_cancel->closing = true;
    cancel();
    m_thread.quit();
    m_thread.wait();
}

void EngineController::raise(std::atomic<quint64>& bound, quint64 value) {
    quint64 seen = bound.load();
    while (seen < value && !bound.compare_exchange_weak(seen, value)) { }
}

quint64 EngineController::loadModel(const QString& path) {
    const quint64 id = ++m_nextId;
    raise(m_cancel->loadsUpTo, id - 1);
    raise(m_cancel->runsUpTo, id - 1);
    const bool wasBusy = busy();
    m_latestLoad = m_pendingLoad = id;
    m_pendingRun = m_pendingCaption = 0;
    if (!wasBusy) emit busyChanged(true);
    emit requestLoad(id, path);
    return id;
}

quint64 EngineController::tokenize(const QString& text, bool target) {
    const quint64 id = ++m_nextId;
    m_latestTokenize[target] = id;
    emit requestTokenize(id, text, target);
    return id;
}

quint64 EngineController::run(const QString& text, const QString& target) {
    const quint64 id = ++m_nextId;
    raise(m_cancel->runsUpTo, id - 1);
    const bool wasBusy = busy();
    m_latestRun = m_pendingRun = id;
    if (!wasBusy) emit busyChanged(true);
    emit requestRun(id, text, target);
    return id;
}

quint64 EngineController::caption(const CaptionRequest& request) {
    const quint64 id = ++m_nextId;
    if (request.action == CaptionRequest::Action::Open || request.action == CaptionRequest::Action::Restart)
        raise(m_cancel->runsUpTo, id - 1);
    const bool wasBusy = busy();
    m_latestCaption = m_pendingCaption = id;
    if (!wasBusy) emit busyChanged(true);
    emit requestCaption(id, request);
    return id;
}

void EngineController::submit(std::function<void(EngineContext&)> job) {
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, job = std::move(job)] { w->runJob(job); }, Qt::QueuedConnection);
}

void EngineController::closeModel() {
    const quint64 id = ++m_nextId;
    raise(m_cancel->loadsUpTo, id - 1);
    raise(m_cancel->runsUpTo, id - 1);
    const bool wasBusy = busy();
    m_latestLoad = id;
    m_pendingLoad = m_pendingRun = m_pendingCaption = 0;
    if (wasBusy) emit busyChanged(false);
    emit requestClose(id);
}

void EngineController::setBackend(BackendChoice choice) {
    m_latestBackend = ++m_nextId;
    emit requestBackend(m_latestBackend, static_cast<int>(choice));
}

void EngineController::derive(
    QObject* client, std::function<void()> compute, std::function<void(const QString&)> done) {
    post<bool>(
        client,
        [compute = std::move(compute)](EngineContext&) {
            compute();
            return true;
        },
        [done](bool) { done({}); }, done);
}

void EngineController::dropSession(std::string key) {
    submit([key = std::move(key)](EngineContext& context) { context.dropSession(key); });
}

void EngineController::cancel() {
    raise(m_cancel->loadsUpTo, m_nextId);
    raise(m_cancel->runsUpTo, m_nextId);
}

void EngineController::finish(quint64 id) {
    const bool wasBusy = busy();
    if (id == m_pendingLoad) m_pendingLoad = 0;
    if (id == m_pendingRun) m_pendingRun = 0;
    if (id == m_pendingCaption) m_pendingCaption = 0;
    if (wasBusy && !busy()) emit busyChanged(false);
}

} // namespace attn::ui
