// SPDX-License-Identifier: MIT
#include "intervention/intervention_runner.h"

#include <QProgressBar>
#include <QPushButton>

namespace attn::ui {

InterventionRunner::InterventionRunner(EngineController* engine, std::string sessionKey, QObject* parent)
    : QObject(parent)
    , m_engine(engine)
    , m_key(std::move(sessionKey))
    , m_cancelUpTo(std::make_shared<std::atomic<quint64>>(0)) {
}

RerunHooks InterventionRunner::start(quint64 id) {
    m_cancelUpTo->store(id - 1); // an older request still running stops at its next layer
    const bool wasBusy = busy();
    m_pending = id;
    if (!wasBusy) emit busyChanged(true);
    // Progress goes through the controller, which outlives the engine thread's jobs; `guard` is read on the GUI thread.
    const QPointer<InterventionRunner> guard(this);
    RerunHooks hooks;
    hooks.layerDone = [engine = m_engine, guard, id](int64_t done, int64_t total) {
        QMetaObject::invokeMethod(
            engine,
            [guard, id, done, total] {
                if (guard && guard->m_pending == id) emit guard->progress(static_cast<int>(done), static_cast<int>(total));
            },
            Qt::QueuedConnection);
        return true;
    };
    hooks.cancelRequested = [cancel = m_cancelUpTo, bounds = m_engine->cancelBounds(), id] {
        return cancel->load() >= id || bounds->closing.load();
    };
    return hooks;
}

bool InterventionRunner::settle(quint64 id) {
    if (id != m_latest) return false;
    if (m_pending != 0) {
        m_pending = 0;
        emit busyChanged(false);
    }
    return true;
}

void InterventionRunner::fail(quint64 id, const QString& message) {
    const bool stopped = m_cancelUpTo->load() >= id;
    if (!settle(id)) return;
    if (stopped)
        emit cancelled();
    else
        emit failed(message);
}

void InterventionRunner::showProgressIn(QProgressBar* bar, QPushButton* cancel) {
    bar->setFormat(tr("layer %v/%m"));
    bar->setMaximumWidth(140);
    bar->hide();
    cancel->setEnabled(false);
    connect(cancel, &QPushButton::clicked, this, &InterventionRunner::cancel);
    connect(this, &InterventionRunner::progress, bar, [bar](int done, int total) {
        bar->setRange(0, total);
        bar->setValue(done);
    });
    connect(this, &InterventionRunner::busyChanged, bar, [bar, cancel](bool busy) {
        cancel->setEnabled(busy);
        bar->setVisible(busy);
        bar->setRange(0, 0); // busy until the first layer reports

    });
}

void InterventionRunner::cancel() {
    m_cancelUpTo->store(m_latest);
}

void InterventionRunner::forget() {
    cancel();
    settle(m_latest);
    ++m_latest; // answers still on their way are dropped
    m_engine->post<bool>(
        this,
        [key = m_key](EngineContext& context) {
            context.dropSession(key);
            return true;
        },
        [](bool) {}, {});
}

} // namespace attn::ui
