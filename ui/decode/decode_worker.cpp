// SPDX-License-Identifier: MIT
#include "decode/decode_worker.h"

#include "core/error.h"

namespace attn::ui {

namespace {
DecodeStepList listOf(std::vector<DecodeStepPtr> steps)
{
    return std::make_shared<const std::vector<DecodeStepPtr>>(std::move(steps));
}
} // namespace

DecodeWorker::DecodeWorker(std::shared_ptr<DecodeRunState> run)
    : m_run(std::move(run))
{
}

DecodeWorker::~DecodeWorker() = default;

template <class Job> bool DecodeWorker::guarded(Job&& job)
{
    try {
        job();
        return true;
    } catch (const std::exception& e) {
        emit failed(QString::fromStdString(e.what()));
        return false;
    }
}

void DecodeWorker::open(const QString& path)
{
    guarded([&] {
        m_engine.reset(); // never two models in memory at once
        m_engine = std::make_unique<DecodeEngine>(path.toStdString());
        emit opened(std::make_shared<const DecodeModelInfo>(m_engine->info()));
    });
}

void DecodeWorker::setSampling(float temperature, float topP, qint64 topK, quint64 seed)
{
    guarded([&] {
        if (!m_engine) throw Error("no model is open for decoding");
        m_engine->setSampling({ temperature, topP, topK, seed });
    });
}

void DecodeWorker::promptText(const QString& text)
{
    guarded([&] {
        if (!m_engine) throw Error("no model is open for decoding");
        promptIds(m_engine->encode(text.toStdString()));
    });
}

void DecodeWorker::promptIds(const std::vector<int64_t>& ids)
{
    guarded([&] {
        if (!m_engine) throw Error("no model is open for decoding");
        m_engine->clear();
        emit timelineChanged(0, listOf({}));
        emit timelineChanged(0, listOf(m_engine->prompt(ids)));
    });
}

bool DecodeWorker::stepOnce()
{
    bool more = false;
    guarded([&] {
        if (!m_engine) throw Error("no model is open for decoding");
        m_run->stepsStarted.fetch_add(1);
        const int64_t keep = m_engine->length();
        if (DecodeStepPtr s = m_engine->step()) {
            emit timelineChanged(keep, listOf({ std::move(s) }));
            more = true;
        } else {
            emit ended(m_engine->length() >= m_engine->info().maxPositions ? tr("the context is full")
                                                                           : tr("the model ended the text"));
        }
    });
    return more;
}

void DecodeWorker::step()
{
    stepOnce();
}

void DecodeWorker::runChain(quint64 generation)
{
    if (generation != m_run->generation.load() || !stepOnce()) {
        emit runStopped(generation);
        return;
    }
    QMetaObject::invokeMethod(
        this, [this, generation] { runChain(generation); }, Qt::QueuedConnection);
}

void DecodeWorker::back()
{
    guarded([&] {
        if (!m_engine) throw Error("no model is open for decoding");
        m_engine->back();
        emit timelineChanged(m_engine->length(), listOf({}));
    });
}

void DecodeWorker::force(qint64 position, qint64 token)
{
    guarded([&] {
        if (!m_engine) throw Error("no model is open for decoding");
        DecodeStepPtr s = m_engine->force(position, token);
        emit timelineChanged(position, listOf({ std::move(s) }));
    });
}

void DecodeWorker::restore(qint64 keep, DecodeStepList steps)
{
    guarded([&] {
        if (!m_engine) throw Error("no model is open for decoding");
        emit timelineChanged(keep, listOf(m_engine->restore(keep, *steps)));
    });
}

void DecodeWorker::clear()
{
    guarded([&] {
        if (m_engine) m_engine->clear();
        emit timelineChanged(0, listOf({}));
    });
}

void DecodeWorker::snapshot(quint64 id, qint64 positions)
{
    // A request for positions a later Back removed is simply not answered: a newer one follows.
    if (id != m_run->latestSnapshot.load() || !m_engine || positions < 1 || positions > m_engine->length()) return;
    guarded([&] { emit snapshotReady(id, m_engine->snapshot(positions)); });
}

} // namespace attn::ui
