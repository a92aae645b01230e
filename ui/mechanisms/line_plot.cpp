// SPDX-License-Identifier: MIT
#include "mechanisms/line_plot.h"

#include <qcustomplot.h>

#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace attn::ui {

LinePlot::LinePlot(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(
        0, 0, new QCPTextElement(m_plot, QString(), QFont(font().family(), 10, QFont::Bold)));
    m_plot->legend->setVisible(true);
    m_plot->legend->setFont(QFont(font().family(), 8));
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    // Explicit, so that the title's length does not set the width of the page.
    setMinimumSize(240, 200);
    m_marker = new QCPItemStraightLine(m_plot);
    m_marker->setPen(QPen(QColor("#555555"), 1, Qt::DotLine));
    m_marker->setVisible(false);
}

void LinePlot::setMarkerX(double x)
{
    m_markerX = x;
    m_marker->setVisible(std::isfinite(x));
    if (std::isfinite(x)) {
        m_marker->point1->setCoords(x, 0.0);
        m_marker->point2->setCoords(x, 1.0);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void LinePlot::setAxes(
    const QString& title, const QString& x, const QString& left, const QString& right, bool logX, bool logY)
{
    m_title = title;
    static_cast<QCPTextElement*>(m_plot->plotLayout()->element(0, 0))->setText(title);
    m_plot->xAxis->setLabel(x);
    m_plot->yAxis->setLabel(left);
    m_plot->yAxis2->setLabel(right);
    m_plot->yAxis2->setVisible(!right.isEmpty());
    m_logX = logX;
    m_logY = logY;
    for (QCPAxis* axis : { m_plot->xAxis, m_plot->yAxis, m_plot->yAxis2 }) {
        const bool log = axis == m_plot->xAxis ? logX : logY;
        axis->setScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
        if (log) {
            auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
            ticker->setLogBase(axis == m_plot->xAxis ? 2 : 10);
            axis->setTicker(ticker);
        } else if (axis == m_plot->xAxis && m_integerX) {
            auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
            ticker->setTickStep(1.0);
            ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples); // 1, 2, 5, 10, ... positions apart
            axis->setTicker(ticker);
        } else {
            axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
        }
    }
}

void LinePlot::setIntegerX(const QString& title, const QString& x, const QString& left)
{
    m_integerX = true;
    setAxes(title, x, left);
}

void LinePlot::setLegendVisible(bool visible)
{
    m_plot->legend->setVisible(visible);
}

void LinePlot::setLegendBelow(int columns)
{
    QCPLegend* legend = m_plot->legend;
    m_plot->axisRect()->insetLayout()->take(legend);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setWrap(columns);
    legend->setBorderPen(Qt::NoPen);
    m_legendBelow = true;
    placeLegendBelow();
}

void LinePlot::placeLegendBelow()
{
    if (!m_legendBelow) return;
    QCPLegend* legend = m_plot->legend;
    QCPLayoutGrid* layout = m_plot->plotLayout();
    // Only while it has entries: a layout grid caps a column at the narrowest maximum width in it, and an empty
    // legend's maximum is its margins, which squeezed the axes into a 50 px sliver before the first series.
    const bool wanted = legend->itemCount() > 0, placed = layout->hasElement(2, 0);
    if (wanted && !placed) {
        layout->addElement(2, 0, legend); // under row 0 (the title) and row 1 (the axes)
        layout->setRowStretchFactor(2, 0.001); // as tall as its entries, the axes take the rest
    } else if (!wanted && placed) {
        layout->take(legend);
        layout->simplify();
    }
    legend->setVisible(wanted); // out of every layout it would still paint where it last was
}

void LinePlot::setSeries(const std::vector<PlotSeries>& series)
{
    m_series = series;
    m_plot->clearGraphs();
    for (const PlotSeries& s : series) {
        QCPGraph* g = m_plot->addGraph(m_plot->xAxis, s.rightAxis ? m_plot->yAxis2 : m_plot->yAxis);
        g->setName(s.name);
        QPen pen(s.color, 2);
        if (s.dashed) pen.setStyle(Qt::DashLine);
        g->setPen(pen);
        if (s.pointsOnly) {
            g->setLineStyle(QCPGraph::lsNone);
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, s.color, s.color, 9));
        }
        g->setData(QVector<double>(s.x.begin(), s.x.end()), QVector<double>(s.y.begin(), s.y.end()));
    }
    m_plot->rescaleAxes();
    // A little room around the data, so markers at the ends are not cut.
    for (QCPAxis* axis : { m_plot->xAxis, m_plot->yAxis, m_plot->yAxis2 })
        axis->scaleRange(axis->scaleType() == QCPAxis::stLogarithmic ? 1.1 : 1.08, axis->range().center());
    if (!m_logY && m_plot->yAxis->range().lower > 0) m_plot->yAxis->setRangeLower(0);
    if (m_leftRange) m_plot->yAxis->setRange(m_leftRange->first, m_leftRange->second);
    if (m_rightRange) m_plot->yAxis2->setRange(m_rightRange->first, m_rightRange->second);
    placeLegendBelow();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void LinePlot::setYRange(double low, double high, bool rightAxis)
{
    (rightAxis ? m_rightRange : m_leftRange) = std::pair { low, high };
    (rightAxis ? m_plot->yAxis2 : m_plot->yAxis)->setRange(low, high);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace attn::ui
