// SPDX-License-Identifier: MIT
#include "widgets/noted_view.h"

#include "model/model_summary.h"

#include <QLabel>

namespace attn::ui {

NotedView::NotedView(QWidget* content, QWidget* parent)
    : QStackedWidget(parent)
    , m_content(content)
    , m_note(new QLabel)
{
    m_note->setObjectName("viewNote");
    m_note->setWordWrap(true);
    m_note->setAlignment(Qt::AlignCenter);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_note->setContentsMargins(24, 24, 24, 24);
    QFont larger = m_note->font();
    larger.setPointSizeF(larger.pointSizeF() * 1.2);
    m_note->setFont(larger);
    addWidget(m_content);
    addWidget(m_note);
}

void NotedView::showNote(const QString& text)
{
    m_note->setText(text);
    setCurrentWidget(m_note);
}

void NotedView::showContent()
{
    setCurrentWidget(m_content);
}

bool NotedView::showsNote() const
{
    return currentWidget() == m_note;
}

QString NotedView::note() const
{
    return showsNote() ? m_note->text() : QString();
}

QString needsDecoderNote(const QString& what, const ModelSummary* summary)
{
    const QString open
        = QObject::tr("Open one with File > Open model, or the stories decoder from File > Demo models.");
    if (!summary)
        return QObject::tr("%1 needs a decoder-only model (one that predicts the next token).\n%2").arg(what, open);
    return QObject::tr("%1 needs a decoder-only model (one that predicts the next token); the open model is of kind "
                       "%2.\n%3")
        .arg(what, QString::fromStdString(modelKindName(summary->config.kind)), open);
}

} // namespace attn::ui
