// SPDX-License-Identifier: MIT
#include "decode/decode_controller.h"

#include <algorithm>

namespace attn::ui {

DecodeController::DecodeController(QObject* parent)
    : QObject(parent)
    , m_run(std::make_shared<DecodeRunState>())
{
    qRegisterMetaType<attn::ui::DecodeInfoPtr>("attn::ui::DecodeInfoPtr");
    qRegisterMetaType<attn::ui::DecodeStepList>("attn::ui::DecodeStepList");
    qRegisterMetaType<attn::ui::SnapshotPtr>("attn::ui::SnapshotPtr");

    m_thread.setObjectName("decode");
    m_worker = new DecodeWorker(m_run);
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);

    connect(m_worker, &DecodeWorker::opened, this, [this](DecodeInfoPtr info) {
        m_info = std::move(info);
        m_steps.clear();
        emit opened(m_info);
        emit timelineChanged(0);
    });
    connect(m_worker, &DecodeWorker::timelineChanged, this, [this](qint64 keep, DecodeStepList added) {
        m_steps.resize(static_cast<size_t>(std::min<qint64>(keep, static_cast<qint64>(m_steps.size()))));
        m_steps.insert(m_steps.end(), added->begin(), added->end());
        emit timelineChanged(keep);
    });
    connect(m_worker, &DecodeWorker::ended, this, &DecodeController::ended);
    connect(m_worker, &DecodeWorker::failed, this, [this](const QString& message) {
        stopRun();
        emit failed(message);
    });
    connect(m_worker, &DecodeWorker::runStopped, this, [this](quint64 generation) {
        if (generation != m_run->generation.load() || !m_running) return;
        m_running = false;
        emit runningChanged(false);
    });
    connect(m_worker, &DecodeWorker::snapshotReady, this, [this](quint64 id, SnapshotPtr snapshot) {
        if (id != m_latestSnapshot) return;
        const qint64 positions = snapshot->numKeys();
        emit snapshotReady(positions, std::move(snapshot));
    });
    m_thread.start();
}

DecodeController::~DecodeController()
{
    stopRun();
    m_thread.quit();
    m_thread.wait();
}

template <class Fn> void DecodeController::post(Fn&& fn)
{
    QMetaObject::invokeMethod(m_worker, std::forward<Fn>(fn), Qt::QueuedConnection);
}

bool DecodeController::stopRun()
{
    m_run->generation.fetch_add(1);
    if (!m_running) return false;
    m_running = false;
    emit runningChanged(false);
    return true;
}

void DecodeController::open(const QString& path)
{
    stopRun();
    m_info.reset();
    clearBranches();
    post([w = m_worker, path] { w->open(path); });
}

void DecodeController::setSampling(const SamplerOptions& o)
{
    post([w = m_worker, o] { w->setSampling(o.temperature, o.topP, o.topK, o.seed); });
}

void DecodeController::prompt(const QString& text)
{
    stopRun();
    clearBranches(); // branches belong to one prompt
    post([w = m_worker, text] { w->promptText(text); });
}

void DecodeController::promptIds(const std::vector<int64_t>& ids)
{
    stopRun();
    clearBranches();
    post([w = m_worker, ids] { w->promptIds(ids); });
}

void DecodeController::step()
{
    stopRun();
    post([w = m_worker] { w->step(); });
}

void DecodeController::run()
{
    if (m_running) return;
    const quint64 generation = m_run->generation.fetch_add(1) + 1;
    m_running = true;
    emit runningChanged(true);
    post([w = m_worker, generation] { w->runChain(generation); });
}

void DecodeController::pause()
{
    stopRun();
}

void DecodeController::back()
{
    stopRun();
    post([w = m_worker] { w->back(); });
}

namespace {

bool sameTokens(const std::vector<DecodeStepPtr>& a, const std::vector<DecodeStepPtr>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
        [](const DecodeStepPtr& x, const DecodeStepPtr& y) { return x->token.id == y->token.id; });
}

} // namespace

bool DecodeController::keepBranch(const std::vector<DecodeStepPtr>& timeline)
{
    if (timeline.empty()) return false;
    for (const auto& b : m_branches)
        if (sameTokens(b, timeline)) return false;
    m_branches.push_back(timeline);
    return true;
}

void DecodeController::clearBranches()
{
    if (m_branches.empty()) return;
    m_branches.clear();
    emit branchesChanged();
}

void DecodeController::switchToBranch(size_t index)
{
    if (index >= m_branches.size()) return;
    stopRun();
    const std::vector<DecodeStepPtr> branch = m_branches[index];
    m_branches.erase(m_branches.begin() + static_cast<std::ptrdiff_t>(index));
    keepBranch(m_steps);
    emit branchesChanged();
    size_t keep = 0;
    while (keep < branch.size() && keep < m_steps.size() && branch[keep]->token.id == m_steps[keep]->token.id)
        ++keep;
    keep = std::max<size_t>(keep, 1); // every branch of a prompt shares its first token
    auto rest = std::make_shared<const std::vector<DecodeStepPtr>>(branch.begin() + static_cast<std::ptrdiff_t>(keep), branch.end());
    post([w = m_worker, keep, rest] { w->restore(static_cast<qint64>(keep), rest); });
}

void DecodeController::force(int64_t position, int64_t token)
{
    // What the force replaces stays reachable; a refused force (a prompt position) replaces nothing.
    if (position >= 0 && position < static_cast<int64_t>(m_steps.size())
        && m_steps[static_cast<size_t>(position)]->origin != TokenOrigin::Prompt && keepBranch(m_steps))
        emit branchesChanged();
    const bool wasRunning = stopRun();
    post([w = m_worker, position, token] { w->force(position, token); });
    if (wasRunning) run();
}

void DecodeController::reset()
{
    stopRun();
    clearBranches();
    post([w = m_worker] { w->clear(); });
}

void DecodeController::requestSnapshot(int64_t positions)
{
    const quint64 id = ++m_latestSnapshot;
    m_run->latestSnapshot.store(id);
    post([w = m_worker, id, positions] { w->snapshot(id, positions); });
}

} // namespace attn::ui
