// SPDX-License-Identifier: MIT
#pragma once
#include "align/alignment_run.h"

#include <QObject>
#include <QString>

#include <memory>

namespace attn::ui {

/// Loads a seq2seq model and runs alignments off the GUI thread (QtConcurrent jobs, one at a time is enough for
/// these sizes); results of superseded requests are dropped. Errors arrive as failed(message), never thrown.
class AlignmentController : public QObject {
    Q_OBJECT
public:
    explicit AlignmentController(QObject* parent = nullptr);

    /// Probes `path`; an encoder-decoder or RNN seq2seq model is loaded (opened), anything else gives
    /// available(false) and no error (other views handle other models).
    void open(const QString& path);
    /// Teacher-forces `reference` when not empty and runs beam search of `beamWidth` (0: none).
    void align(const QString& source, const QString& reference, int beamWidth);

    bool isOpen() const { return m_translator != nullptr; }

signals:
    void available(bool yes);
    void opened(const QString& description);
    void ready(attn::ui::AlignmentRunPtr run);
    void failed(const QString& message);

private:
    std::shared_ptr<const Translator> m_translator;
    quint64 m_openId = 0, m_alignId = 0;
};

} // namespace attn::ui
