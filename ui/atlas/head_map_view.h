// SPDX-License-Identifier: MIT
#pragma once
// What the two drawings of the head map share: the map, the highlighted head (linked between them) and the signals
// a head under the mouse or clicked sends.
#include "atlas/head_map.h"

#include <QWidget>

namespace attn::ui {

class HeadMapView : public QWidget {
    Q_OBJECT
public:
    explicit HeadMapView(QWidget* parent = nullptr);

    virtual void setMap(HeadMapPtr map);
    HeadMapPtr map() const { return m_map; }
    /// Head index (layer * heads + head) to frame; -1: none.
    void setHighlight(int64_t head);
    int64_t highlight() const { return m_highlight; }

signals:
    /// The mouse is over head `head` (index), or left the heads (-1); `other` is the matrix column's head, else -1.
    void headHovered(qint64 head, qint64 other);
    void headActivated(qint64 layer, qint64 head);

protected:
    /// The head index drawn at `at` (the matrix: its row), -1 for none; `other` gets the column's head.
    virtual int64_t headAt(const QPoint& at, int64_t* other) const = 0;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

    HeadMapPtr m_map;
    int64_t m_highlight = -1;
};

} // namespace attn::ui
