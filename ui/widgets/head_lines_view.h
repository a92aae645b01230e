// SPDX-License-Identifier: MIT
#pragma once
#include "model/attention_snapshot.h"

#include <QWidget>

#include <set>

namespace attn::ui {

/// BertViz-style head view: query tokens on the left, key tokens on the right, a line per (query, key) whose
/// opacity is the attention weight; several heads of one layer at once, each in its own colour.
/// Click a left token to show only its lines (click again for all); click a head swatch to toggle that head.
class HeadLinesView : public QWidget {
    Q_OBJECT
public:
    explicit HeadLinesView(QWidget* parent = nullptr);

    void setSnapshot(SnapshotPtr snapshot);
    void setLayer(int64_t layer);
    void setHeads(const std::set<int64_t>& heads);
    /// -1 shows the lines of every query token.
    void setSelectedToken(int64_t token);

    const std::set<int64_t>& heads() const { return m_heads; }
    int64_t layer() const { return m_layer; }
    int64_t selectedToken() const { return m_selected; }
    static QColor headColor(int64_t head);
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    QRect tokenRect(bool left, int64_t index) const;
    QRect swatchRect(int64_t head) const;

    SnapshotPtr m_snapshot;
    int64_t m_layer = 0;
    std::set<int64_t> m_heads { 0, 1 };
    int64_t m_selected = -1;
};

} // namespace attn::ui
