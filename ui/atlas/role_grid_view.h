// SPDX-License-Identifier: MIT
#pragma once
// The head map's layer x head grid: every head coloured by its role, numbered by its cluster where the cells have
// room, the highlighted head framed.
#include "atlas/head_map_view.h"

namespace attn::ui {

class RoleGridView : public HeadMapView {
    Q_OBJECT
public:
    explicit RoleGridView(QWidget* parent = nullptr);
    QSize sizeHint() const override { return { 360, 300 }; }
    /// The cell of head `index` in widget coordinates (tests click there).
    QRectF cellRect(int64_t index) const;

protected:
    void paintEvent(QPaintEvent* event) override;
    int64_t headAt(const QPoint& at, int64_t* other) const override;

private:
    QRectF gridRect() const;
};

} // namespace attn::ui
