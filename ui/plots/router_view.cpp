// SPDX-License-Identifier: MIT
#include "plots/router_view.h"

#include "model/moe_routing.h"
#include "plots/color_map_grid.h"

#include <qcustomplot.h>

#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cmath>

namespace attn::ui {

namespace {
// The load bars keep 160 px between their axes: at a 160 px minimum for the whole plot its title, tick labels and axis
// title left them ~80 px at 1024x700, where a share of 0.25 and one of 0.3 looked alike. Those take ~90 px.
constexpr int kLoadBarsHeight = 160;
constexpr int kLoadFrameHeight = 90;
} // namespace

RouterView::RouterView(QWidget* parent)
    : QWidget(parent)
    , m_layer(new QSpinBox)
    , m_caption(new QLabel)
    , m_gates(new QCustomPlot)
    , m_load(new QCustomPlot)
{
    m_layer->setMinimumWidth(64); // room for the value next to the arrows in every style
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Layer:")));
    bar->addWidget(m_layer);
    bar->addWidget(m_caption, 1);
    m_map = new QCPColorMap(m_gates->xAxis, m_gates->yAxis);
    auto* scale = new QCPColorScale(m_gates);
    m_gates->plotLayout()->addElement(0, 1, scale);
    m_map->setColorScale(scale);
    // Experts a token was not routed to stay blank (white), apart from a chosen expert with a small weight: the hot
    // scale stops at yellow instead of white.
    QCPColorGradient hot;
    hot.setColorStopAt(0.0, QColor(60, 0, 0));
    hot.setColorStopAt(0.45, QColor(220, 30, 0));
    hot.setColorStopAt(0.8, QColor(255, 160, 0));
    hot.setColorStopAt(1.0, QColor(255, 225, 40));
    hot.setNanHandling(QCPColorGradient::nhTransparent);
    m_map->setGradient(hot);
    m_map->setInterpolate(false);
    scale->setDataRange(QCPRange(0, 1));
    scale->axis()->setLabel(tr("gate weight"));
    // No zero lines: across the map the y axis's ran through the middle of expert 0's row, and over the load the x
    // axis's through expert 0's bar.
    for (QCPAxis* axis : { m_gates->xAxis, m_gates->yAxis, m_load->xAxis })
        axis->grid()->setZeroLinePen(Qt::NoPen);
    m_gates->xAxis->setLabel(tr("token"));
    m_gates->yAxis->setLabel(tr("expert"));
    m_gates->setObjectName("routerGates");
    m_load->setObjectName("routerLoad");
    m_bars = new QCPBars(m_load->xAxis, m_load->yAxis);
    m_load->xAxis->setLabel(tr("expert"));
    m_load->yAxis->setLabel(tr("share of tokens"));
    m_load->setMinimumHeight(kLoadBarsHeight + kLoadFrameHeight);
    m_bars->setPen(QPen(QColor("#1f77b4")));
    m_bars->setBrush(QColor(31, 119, 180, 120));
    // Titles say what each plot is: the window has no other words for them.
    for (QCustomPlot* plot : { m_gates, m_load }) {
        plot->plotLayout()->insertRow(0);
        plot->plotLayout()->addElement(
            0, 0, new QCPTextElement(plot, QString(), QFont(font().family(), 10, QFont::Bold)));
    }
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_gates, 3);
    layout->addWidget(m_load, 1);
    connect(m_layer, &QSpinBox::valueChanged, this, [this](int layer) { setLayer(layer); });
}

void RouterView::setRun(RunPtr run)
{
    m_run = std::move(run);
    const QSignalBlocker block(m_layer);
    m_layer->setRange(0, hasRouter() ? static_cast<int>(m_run->routerLogits.size()) - 1 : 0);
    setLayer(m_layer->value());
}

void RouterView::setLayer(int layer)
{
    m_weights = hasRouter() ? routeTopK(m_run->routerLogits.at(static_cast<size_t>(layer)), m_run->expertsPerToken)
                            : Tensor();
    redraw();
}

double RouterView::gateWeight(int64_t token, int64_t expert) const
{
    return m_weights.data()[token * m_weights.dim(1) + expert];
}

double RouterView::expertLoad(int64_t expert) const
{
    int64_t chosen = 0;
    for (int64_t t = 0; t < m_weights.dim(0); ++t)
        chosen += gateWeight(t, expert) > 0 ? 1 : 0;
    return m_weights.dim(0) ? static_cast<double>(chosen) / static_cast<double>(m_weights.dim(0)) : 0.0;
}

void RouterView::redraw()
{
    const int64_t tokens = m_weights.empty() ? 0 : m_weights.dim(0), experts = m_weights.empty() ? 0 : m_weights.dim(1);
    m_caption->setText(hasRouter()
            ? tr("top-%1 of %2 experts per token; %3 tokens").arg(m_run->expertsPerToken).arg(experts).arg(tokens)
            : tr("no router: this model has a dense feed-forward"));
    fillColorMapGrid(m_map->data(),
        { static_cast<int>(tokens), 0, static_cast<double>(std::max<int64_t>(tokens - 1, 0)) },
        { static_cast<int>(experts), 0, static_cast<double>(std::max<int64_t>(experts - 1, 0)) }, [&](int t, int e) {
            const double w = gateWeight(t, e);
            return w > 0 ? w : std::nan("");
        });
    QVector<double> keys, loads;
    m_load->clearItems();
    for (int64_t e = 0; e < experts; ++e) {
        keys.push_back(static_cast<double>(e));
        loads.push_back(expertLoad(e));
        auto* value = new QCPItemText(m_load); // the share on its bar: the bars alone read only roughly
        value->position->setCoords(static_cast<double>(e), loads.back());
        value->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        value->setText(QString::number(loads.back(), 'f', 2));
    }
    const QString layer = QString::number(m_layer->value());
    static_cast<QCPTextElement*>(m_gates->plotLayout()->element(0, 0))
        ->setText(tr("Gate weight per token and expert, layer %1 (blank: not routed)").arg(layer));
    static_cast<QCPTextElement*>(m_load->plotLayout()->element(0, 0))
        ->setText(tr("Expert load, layer %1: share of tokens routed to each (sums to %2)")
                      .arg(layer)
                      .arg(hasRouter() ? m_run->expertsPerToken : 0));
    auto labels = QSharedPointer<QCPAxisTickerText>::create();
    if (m_run)
        for (size_t t = 0; t < m_run->source.size() && static_cast<int64_t>(t) < tokens; ++t)
            labels->addTick(static_cast<double>(t), QString::fromStdString(m_run->source[t].text));
    m_gates->xAxis->setTicker(labels);
    m_gates->xAxis->setTickLabelRotation(tokens > 12 ? 60 : 0); // few tokens read better upright
    for (QCustomPlot* plot : { m_gates, m_load }) {
        auto integers = QSharedPointer<QCPAxisTickerFixed>::create();
        integers->setTickStep(1.0);
        (plot == m_gates ? plot->yAxis : plot->xAxis)->setTicker(integers);
    }
    m_gates->xAxis->setRange(-0.5, static_cast<double>(tokens) - 0.5);
    m_gates->yAxis->setRange(-0.5, static_cast<double>(experts) - 0.5);
    m_bars->setData(keys, loads);
    m_load->xAxis->setRange(-0.5, static_cast<double>(experts) - 0.5);
    m_load->yAxis->setRange(0, 1.15); // room for the value over a bar of 1
    m_gates->replot();
    m_load->replot();
}

} // namespace attn::ui
