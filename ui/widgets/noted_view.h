// SPDX-License-Identifier: MIT
#pragma once
#include <QStackedWidget>

class QLabel;

namespace attn::ui {

struct ModelSummary;

/// A tab's views, or in their place a note saying why there is nothing to show and what to do: on a model the tab
/// cannot use, empty axes under a one-line status read as a broken plot (Intervene and Logit lens on the Marian demo).
/// The note's page is as large as the views', so switching does not move the rest of the tab.
class NotedView : public QStackedWidget {
    Q_OBJECT
public:
    explicit NotedView(QWidget* content, QWidget* parent = nullptr);

    void showNote(const QString& text);
    void showContent();
    bool showsNote() const;
    QString note() const;

private:
    QWidget* m_content;
    QLabel* m_note;
};

/// The note for a tab that needs a decoder-only model (`what` it does, e.g. "Ablation"), for the model open (null:
/// none): names the kind it is and how to open a decoder.
QString needsDecoderNote(const QString& what, const ModelSummary* summary);

} // namespace attn::ui
