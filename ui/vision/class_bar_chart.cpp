// SPDX-License-Identifier: MIT
#include "vision/class_bar_chart.h"

#include <QPainter>

#include <algorithm>

namespace attn::ui {

namespace {
constexpr int kMargin = 8;
constexpr int kRows = 5; // the chart keeps room for five rows, so fewer classes do not stretch the bars
} // namespace

ClassBarChart::ClassBarChart(QWidget* parent)
    : QWidget(parent)
{
}

void ClassBarChart::setClasses(std::vector<ClassScore> classes)
{
    m_classes = std::move(classes);
    update();
}

ClassBarChart::Layout ClassBarChart::layout() const
{
    const QFontMetrics metrics = fontMetrics();
    int labelWidth = metrics.horizontalAdvance("0.000");
    // One pixel of slack: elidedText measures in fractional pixels, and the widest label, an exact fit in whole
    // ones, was elided ("trian…" beside a bar with room to spare).
    for (const ClassScore& c : m_classes)
        labelWidth = std::max(labelWidth, metrics.horizontalAdvance(QString::fromStdString(c.label)) + 1);
    labelWidth = std::min(labelWidth, width() / 3);
    const double top = kMargin + metrics.height() * 1.5;
    const double bottom = height() - kMargin - metrics.height() * 1.5; // room for the axis labels
    const double x = kMargin + labelWidth + 6.0;
    return { static_cast<double>(labelWidth), x, std::max(1.0, width() - x - kMargin - 4.0), top,
        std::max(1.0, (bottom - top) / std::max<double>(kRows, static_cast<double>(m_classes.size()))) };
}

QRectF ClassBarChart::barRect(size_t i) const
{
    if (i >= m_classes.size()) return {};
    const Layout l = layout();
    return QRectF(l.x, l.top + l.rowHeight * (static_cast<double>(i) + 0.15),
        l.width * std::clamp(m_classes[i].probability, 0.0, 1.0), l.rowHeight * 0.7);
}

QString ClassBarChart::title() const
{
    // topClasses keeps five: fewer are all the model has.
    const auto n = static_cast<int>(m_classes.size());
    if (n == 0) return tr("top classes");
    return n < kRows ? tr("all %1 classes").arg(n) : tr("top-%1 classes").arg(n);
}

QSize ClassBarChart::sizeHint() const
{
    return { 300, 340 };
}

QSize ClassBarChart::minimumSizeHint() const
{
    return { 160, 120 };
}

void ClassBarChart::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().window());
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(rect().adjusted(2, 0, -2, 0), Qt::AlignTop | Qt::AlignHCenter, title());
    if (m_classes.empty()) return;
    const Layout l = layout();
    const double rowsBottom = l.top + l.rowHeight * std::max<double>(kRows, static_cast<double>(m_classes.size()));
    // The probability axis: 0, 0.5 and 1 with faint guide lines, so bar lengths can be read.
    for (double p : { 0.0, 0.5, 1.0 }) {
        const double x = l.x + l.width * p;
        painter.setPen(QPen(QColor(0, 0, 0, p == 0.0 ? 160 : 40), 0));
        painter.drawLine(QPointF(x, l.top), QPointF(x, rowsBottom));
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(QRectF(x - 30, rowsBottom + 2, 60, fontMetrics().height()), Qt::AlignHCenter | Qt::AlignTop,
            QString::number(p, 'g', 2));
    }
    painter.drawText(QRectF(l.x, rowsBottom + 2 + fontMetrics().height(), l.width, fontMetrics().height()),
        Qt::AlignHCenter | Qt::AlignTop, tr("probability"));
    for (size_t i = 0; i < m_classes.size(); ++i) {
        const QRectF bar = barRect(i);
        painter.fillRect(bar, barColor());
        const QRectF row(kMargin, bar.top(), l.labelWidth, bar.height());
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(row, Qt::AlignRight | Qt::AlignVCenter,
            fontMetrics().elidedText(QString::fromStdString(m_classes[i].label), Qt::ElideRight, row.width()));
        // The value sits after the bar, or inside it when the bar reaches the right edge.
        const QString value = QString::number(m_classes[i].probability, 'f', 3);
        const double valueWidth = fontMetrics().horizontalAdvance(value) + 8.0;
        const bool inside = bar.right() + valueWidth > l.x + l.width + 4.0;
        const QRectF valueRect = inside ? QRectF(bar.right() - valueWidth, bar.top(), valueWidth - 4.0, bar.height())
                                        : QRectF(bar.right() + 4.0, bar.top(), valueWidth, bar.height());
        painter.drawText(valueRect, (inside ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter, value);
    }
}

} // namespace attn::ui
