// SPDX-License-Identifier: MIT
#include "decode/timeline_view.h"

#include "decode/position_axis.h"
#include "plots/plot_legend.h"
#include "plots/series_density.h"

#include <QSlider>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <cmath>

namespace attn::ui {

namespace {
const QColor kProbabilityColor(230, 120, 30), kEntropyColor(40, 90, 180);
} // namespace

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot)
    , m_slider(new QSlider(Qt::Horizontal))
{
    setObjectName("timelineView");
    m_slider->setObjectName("timelineSlider");
    m_slider->setToolTip(tr("Scrub through the decoded steps: every view shows that step as it was"));
    m_slider->setRange(0, 0);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_slider);

    // Wide antialiased polylines through the generic stroker were the largest GUI cost during Run.
    m_plot->setPlottingHints(QCP::phFastPolylines | QCP::phCacheLabels);
    m_plot->addGraph(m_plot->xAxis, m_plot->yAxis);
    m_plot->graph(0)->setName(tr("p(chosen)"));
    fitSeriesToDensity(*m_plot->graph(0), kProbabilityColor, true);
    m_plot->addGraph(m_plot->xAxis, m_plot->yAxis2);
    m_plot->graph(1)->setName(tr("entropy (bits)"));
    fitSeriesToDensity(*m_plot->graph(1), kEntropyColor, false);
    m_plot->yAxis2->setVisible(true);
    m_plot->yAxis->setRange(0, 1.05);
    m_plot->yAxis->setLabel(tr("probability"));
    m_plot->yAxis2->setLabel(tr("entropy (bits)"));
    m_plot->xAxis->setLabel(tr("position"));
    setPositionTicks(*m_plot->xAxis);
    m_plot->legend->setFont(font());
    placeLegendAbove(m_plot);
    m_cursor = new QCPItemStraightLine(m_plot);
    m_cursor->setPen(QPen(QColor(90, 90, 90), 1, Qt::DashLine));
    m_cursor->setVisible(false); // until a step is shown: its default points drew a diagonal across the empty plot

    connect(m_slider, &QSlider::valueChanged, this, [this](int value) {
        setCurrent(value);
        emit stepSelected(value);
    });
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
        const auto index = std::lround(m_plot->xAxis->pixelToCoord(event->pos().x()));
        if (index >= m_slider->minimum() && index <= m_slider->maximum()) m_slider->setValue(static_cast<int>(index));
    });
}

void TimelineView::setSteps(const std::vector<DecodeStepPtr>& steps)
{
    QVector<double> x, probability, entropy;
    double maxEntropy = 1.0;
    for (const DecodeStepPtr& s : steps) {
        if (std::isnan(s->probability)) continue; // position 0 has no distribution
        x.push_back(static_cast<double>(s->position));
        probability.push_back(s->probability);
        entropy.push_back(s->entropyBits);
        maxEntropy = std::max(maxEntropy, static_cast<double>(s->entropyBits));
    }
    m_plot->graph(0)->setData(x, probability, true);
    m_plot->graph(1)->setData(x, entropy, true);
    fitSeriesToDensity(*m_plot->graph(0), kProbabilityColor, true);
    fitSeriesToDensity(*m_plot->graph(1), kEntropyColor, false);
    m_plot->yAxis2->setRange(0, maxEntropy * 1.05);
    m_plot->xAxis->setRange(-0.5, std::max<double>(1.0, static_cast<double>(steps.size())) - 0.5);
    const QSignalBlocker block(m_slider);
    m_slider->setRange(0, std::max(0, static_cast<int>(steps.size()) - 1));
    m_cursor->setVisible(!steps.empty());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::setCurrent(int64_t index)
{
    {
        const QSignalBlocker block(m_slider);
        m_slider->setValue(static_cast<int>(index));
    }
    m_cursor->point1->setCoords(static_cast<double>(index), 0);
    m_cursor->point2->setCoords(static_cast<double>(index), 1);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

int64_t TimelineView::current() const
{
    return m_slider->value();
}

} // namespace attn::ui
