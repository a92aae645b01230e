// SPDX-License-Identifier: MIT
#pragma once
#include "vision/vision_result.h"

#include <QColor>
#include <QWidget>

#include <vector>

namespace attn::ui {

/// The top classes as horizontal bars (length = probability, 0..1), best first. Painted with plain QPainter shapes
/// and text, so SVG/PDF exports keep the bars and labels as vectors.
class ClassBarChart : public QWidget {
    Q_OBJECT
public:
    explicit ClassBarChart(QWidget* parent = nullptr);

    void setClasses(std::vector<ClassScore> classes);
    const std::vector<ClassScore>& classes() const { return m_classes; }
    /// "top-5 classes", or "all 4 classes" for a model with fewer than five: the four shapes of the demo were titled
    /// "top-5".
    QString title() const;
    /// Where the bar of class `i` is painted (widget coordinates); empty for i outside the classes.
    QRectF barRect(size_t i) const;

    static QColor barColor() { return QColor(120, 150, 200); }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    /// The area of the bar rows: labels on the left, bars from `x` of `width` for probability 1.
    struct Layout {
        double labelWidth, x, width, top, rowHeight;
    };
    Layout layout() const;

    std::vector<ClassScore> m_classes;
};

} // namespace attn::ui
