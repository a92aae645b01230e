// SPDX-License-Identifier: MIT
#pragma once
#include "widgets/token_link.h"

#include <QWidget>

class QLabel;
class QSpinBox;
class QToolButton;

namespace attn::ui {

/// The toolbar's one view of the shared token range: which sequence it addresses ("input:" or "decoded:"), "tokens
/// from – to" (the keys; self-attention's queries are the same), "rows a–b" when the range's queries are other
/// positions (a heatmap zoomed off the diagonal), and All. Editing it zooms every view of that sequence; zooming one
/// of them updates it.
class TokenRangeBar : public QWidget {
    Q_OBJECT
public:
    explicit TokenRangeBar(TokenLink* link, QWidget* parent = nullptr);

    /// Edits and shows `link`'s range over a snapshot of `queries` x `keys` (0: none), the positions of the sequence
    /// `sequence` names (the bar's label): the main input's link, or on the Decode tab the decoded text's.
    void address(TokenLink* link, int64_t queries, int64_t keys, const QString& sequence);
    TokenLink* link() const { return m_link; }
    QString sequenceText() const;
    /// Whether the current tab shows the range (the heatmap, head view and model view do); elsewhere it is greyed.
    void setApplies(bool applies);
    QSpinBox* fromBox() const { return m_from; }
    QSpinBox* toBox() const { return m_to; }
    QToolButton* allButton() const { return m_all; }
    /// "rows a–b" while the queries shown are not the keys' positions (empty otherwise).
    QString rowsText() const;

private:
    void showRange();
    void edited();

    TokenLink* m_link = nullptr;
    QLabel* m_sequence = nullptr;
    QSpinBox* m_from = nullptr;
    QSpinBox* m_to = nullptr;
    QLabel* m_rows = nullptr;
    QToolButton* m_all = nullptr;
    int64_t m_queries = 0;
    int64_t m_keys = 0;
    bool m_applies = true;
};

} // namespace attn::ui
