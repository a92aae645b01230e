// SPDX-License-Identifier: MIT
#include "decode/probability_chart.h"

#include "export/figure_export.h"
#include "model/token_text.h"

#include <QVBoxLayout>

#include <qcustomplot.h>

#include <cmath>

namespace attn::ui {

ProbabilityChart::ProbabilityChart(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
    , m_ticker(new QCPAxisTickerText)
{
    setObjectName("probabilityChart");
    m_plot->setObjectName(kFigureObjectName); // what Export > figure draws of the decode panel
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    // Bars grow to the right so that token labels stay readable on the vertical axis.
    m_bars = new QCPBars(m_plot->yAxis, m_plot->xAxis);
    m_bars->setBrush(QColor(120, 150, 200));
    m_bars->setPen(Qt::NoPen);
    m_bars->setWidth(0.7);
    m_chosen = new QCPBars(m_plot->yAxis, m_plot->xAxis);
    m_chosen->setBrush(QColor(230, 120, 30));
    m_chosen->setPen(Qt::NoPen);
    m_chosen->setWidth(0.7);
    m_plot->yAxis->setTicker(m_ticker);
    m_plot->yAxis->setRangeReversed(true);
    m_plot->xAxis->setLabel(tr("probability"));
    m_plot->xAxis->setRange(0, 1);
    m_plot->xAxis->ticker()->setTickCount(3);
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, new QCPTextElement(m_plot, tr("next-token probabilities")));
    m_plot->setToolTip(tr("Model probabilities (softmax of the logits, before temperature and top-k/top-p); the "
                          "chosen token is orange. Click another token to force it."));
    connect(m_plot, &QCustomPlot::mousePress, this, &ProbabilityChart::onClick);
}

void ProbabilityChart::setStep(DecodeStepPtr step)
{
    if (step == m_step && m_replots > 0) return; // the step shown: drawn already
    m_step = std::move(step);
    QVector<double> keys, values, chosenKeys, chosenValues;
    QMap<double, QString> labels;
    double maxValue = 0.0;
    if (m_step) {
        for (size_t i = 0; i < m_step->candidates.size(); ++i) {
            const TokenCandidate& c = m_step->candidates[i];
            const bool chosen = c.token.id == m_step->token.id;
            (chosen ? chosenKeys : keys).push_back(static_cast<double>(i));
            (chosen ? chosenValues : values).push_back(c.probability);
            labels.insert(static_cast<double>(i), elidedToken(c.token, 14));
            maxValue = std::max(maxValue, static_cast<double>(c.probability));
        }
    }
    m_bars->setData(keys, values, true);
    m_chosen->setData(chosenKeys, chosenValues, true);
    if (labels != m_ticker->ticks()) {
        m_ticker->setTicks(labels);
        ++m_labelChanges;
    }
    const auto n = m_step ? static_cast<double>(m_step->candidates.size()) : 1.0;
    m_plot->yAxis->setRange(-0.5, std::max(1.0, n) - 0.5);
    // The probability axis ends at the next tenth above the largest bar (with a margin): from step to step it mostly
    // stays, and with it the axis' ticks and labels.
    const double upper = maxValue > 0 ? std::min(1.0, std::ceil(maxValue * 1.1 * 10.0) / 10.0) : 1.0;
    m_plot->xAxis->setRange(0, upper);
    ++m_replots;
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

int ProbabilityChart::chosenIndex() const
{
    if (!m_step) return -1;
    for (size_t i = 0; i < m_step->candidates.size(); ++i)
        if (m_step->candidates[i].token.id == m_step->token.id) return static_cast<int>(i);
    return -1;
}

QPoint ProbabilityChart::barCenter(int i) const
{
    const double x = m_plot->xAxis->coordToPixel(m_plot->xAxis->range().upper * 0.02);
    const double y = m_plot->yAxis->coordToPixel(i);
    return { static_cast<int>(x), static_cast<int>(y) };
}

void ProbabilityChart::onClick(QMouseEvent* event)
{
    if (!m_step || !m_plot->axisRect()->rect().contains(event->pos())) return;
    const double row = m_plot->yAxis->pixelToCoord(event->pos().y());
    const auto i = static_cast<long>(std::lround(row));
    if (i < 0 || i >= static_cast<long>(m_step->candidates.size())) return;
    const int64_t token = m_step->candidates[static_cast<size_t>(i)].token.id;
    if (token != m_step->token.id) emit candidateClicked(m_step->position, token);
}

} // namespace attn::ui
