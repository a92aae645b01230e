// SPDX-License-Identifier: MIT
#include "align/alignment_controller.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>
#include <variant>

namespace attn::ui {
namespace {

/// Runs `job` on the thread pool and hands its value or error message to `done` on the GUI thread.
template <typename T, typename Job, typename Done> void runJob(QObject* owner, Job job, Done done)
{
    using Outcome = std::variant<T, QString>;
    auto* watcher = new QFutureWatcher<Outcome>(owner);
    QObject::connect(watcher, &QFutureWatcher<Outcome>::finished, owner, [watcher, done] {
        done(watcher->result());
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run([job]() -> Outcome {
        try {
            return job();
        } catch (const std::exception& e) {
            return QString::fromStdString(e.what());
        }
    }));
}

} // namespace

AlignmentController::AlignmentController(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<AlignmentRunPtr>("attn::ui::AlignmentRunPtr");
}

void AlignmentController::open(const QString& path)
{
    const quint64 id = ++m_openId;
    m_translator.reset();
    const std::string file = path.toStdString();
    runJob<std::shared_ptr<const Translator>>(
        this,
        [file]() -> std::shared_ptr<const Translator> {
            if (!Translator::accepts(file)) return nullptr;
            return std::make_shared<const Translator>(file);
        },
        [this, id](const auto& outcome) {
            if (id != m_openId) return;
            if (const QString* error = std::get_if<QString>(&outcome)) {
                emit available(false);
                emit failed(*error);
                return;
            }
            m_translator = std::get<0>(outcome);
            emit available(m_translator != nullptr);
            if (m_translator) emit opened(QString::fromStdString(m_translator->describe()));
        });
}

void AlignmentController::align(const QString& source, const QString& reference, int beamWidth)
{
    if (!m_translator) {
        emit failed(tr("Open an encoder-decoder or RNN seq2seq model first."));
        return;
    }
    const quint64 id = ++m_alignId;
    runJob<AlignmentRunPtr>(
        this,
        [translator = m_translator, src = source.toStdString(), ref = reference.trimmed().toStdString(), beamWidth] {
            return runAlignment(*translator, src, ref, beamWidth);
        },
        [this, id](const auto& outcome) {
            if (id != m_alignId) return;
            if (const QString* error = std::get_if<QString>(&outcome))
                emit failed(*error);
            else
                emit ready(std::get<0>(outcome));
        });
}

} // namespace attn::ui
