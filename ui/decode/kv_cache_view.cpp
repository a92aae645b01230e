// SPDX-License-Identifier: MIT
#include "decode/kv_cache_view.h"

#include "attention/attention.h"
#include "decode/fixed_text_box.h"
#include "decode/position_axis.h"
#include "plots/plot_legend.h"
#include "plots/series_density.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <qcustomplot.h>

namespace attn::ui {

namespace {
const QColor kKeyColor(40, 90, 180), kValueColor(200, 80, 40);
} // namespace

KvCacheView::KvCacheView(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot)
    , m_label(new QLabel)
    , m_layerBox(new QSpinBox)
{
    setObjectName("kvCacheView");
    m_layerBox->setPrefix(tr("layer "));
    m_layerBox->setToolTip(tr("The layer whose key and value norms are plotted"));
    m_label->setObjectName("kvCacheSummary");
    m_label->setWordWrap(true); // a sentence; unwrapped it set the panel's minimum width
    m_label->setAlignment(Qt::AlignLeft | Qt::AlignTop); // a text longer than the box loses its end, not its start
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("<b>KV cache</b>")));
    row->addWidget(m_layerBox);
    row->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(row);
    // The summary under the title row, the panel's whole width: beside the spin box it had ~90 px at 1024 px and lost
    // its end. Its text changes at every decode step.
    layout->addWidget(new FixedTextBox(m_label, 2));
    layout->addWidget(m_plot, 1);

    m_plot->setPlottingHints(QCP::phFastPolylines | QCP::phCacheLabels); // redrawn at every decode step
    m_plot->addGraph();
    m_plot->graph(0)->setName(tr("|key|"));
    fitSeriesToDensity(*m_plot->graph(0), kKeyColor, false);
    m_plot->addGraph();
    m_plot->graph(1)->setName(tr("|value|"));
    fitSeriesToDensity(*m_plot->graph(1), kValueColor, false);
    m_plot->legend->setFont(font());
    placeLegendAbove(m_plot);
    m_plot->xAxis->setLabel(tr("position"));
    setPositionTicks(*m_plot->xAxis);
    m_plot->yAxis->setLabel(tr("L2 norm"));
    m_outsideBand = new QCPItemRect(m_plot);
    m_outsideBand->setPen(Qt::NoPen);
    m_outsideBand->setBrush(QColor(120, 120, 120, 60));
    m_outsideBand->setVisible(false);
    connect(m_layerBox, &QSpinBox::valueChanged, this, &KvCacheView::redraw);
}

void KvCacheView::setInfo(const DecodeModelInfo& info)
{
    m_info = info;
    const QSignalBlocker block(m_layerBox);
    m_layerBox->setRange(0, static_cast<int>(std::max<int64_t>(0, info.numLayers - 1)));
    m_steps.clear();
    redraw();
}

void KvCacheView::setSteps(const std::vector<DecodeStepPtr>& steps, int64_t count)
{
    m_steps.assign(steps.begin(), steps.begin() + std::clamp<int64_t>(count, 0, static_cast<int64_t>(steps.size())));
    redraw();
}

int64_t KvCacheView::layer() const
{
    return m_layerBox->value();
}

void KvCacheView::setLayer(int64_t layer)
{
    m_layerBox->setValue(static_cast<int>(layer));
}

QString KvCacheView::summary() const
{
    return m_label->text();
}

void KvCacheView::redraw()
{
    const auto n = static_cast<int64_t>(m_steps.size());
    const auto l = static_cast<size_t>(layer());
    QVector<double> x, keys, values;
    for (const DecodeStepPtr& s : m_steps) {
        if (l >= s->keyNorms.size()) break;
        x.push_back(static_cast<double>(s->position));
        keys.push_back(s->keyNorms[l]);
        values.push_back(s->valueNorms[l]);
    }
    m_plot->graph(0)->setData(x, keys, true);
    m_plot->graph(1)->setData(x, values, true);
    fitSeriesToDensity(*m_plot->graph(0), kKeyColor, false);
    fitSeriesToDensity(*m_plot->graph(1), kValueColor, false);
    // Which keys the newest query still sees, by the same mask rule as the attention itself.
    MaskSpec mask;
    mask.causal = true;
    mask.slidingWindow = m_info.windowOfLayer(layer());
    m_outside = 0;
    for (int64_t k = 0; k < n; ++k)
        if (!keyVisible(mask, n - 1, k)) ++m_outside;
    // The layer is the spin box's beside the title.
    QString text = tr("%1 positions cached (keys and values of %2 KV heads)").arg(n).arg(m_info.numKvHeads);
    if (mask.slidingWindow > 0)
        text += tr("; window %1: %2 positions have left it").arg(mask.slidingWindow).arg(m_outside);
    else if (!m_info.layerWindows.empty())
        text += tr("; a global layer: every position stays in view");
    if (m_info.attnLogitSoftcap > 0) text += tr("; scores soft-capped at %1").arg(m_info.attnLogitSoftcap);
    m_label->setText(text);
    m_label->setToolTip(text); // all of it where the box cuts it
    m_outsideBand->setVisible(m_outside > 0);
    m_outsideBand->topLeft->setCoords(-0.5, 1e9);
    m_outsideBand->bottomRight->setCoords(static_cast<double>(m_outside) - 0.5, -1e9);
    m_plot->rescaleAxes();
    m_plot->xAxis->setRange(-0.5, std::max<double>(1.0, static_cast<double>(n)) - 0.5);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace attn::ui
