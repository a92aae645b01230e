// SPDX-License-Identifier: MIT
#pragma once
#include "session/decode_step.h"

#include <QWidget>

class QCustomPlot;
class QCPAxisTickerText;
class QCPBars;
class QMouseEvent;

namespace attn::ui {

/// The most likely next tokens of one step as bars, the chosen one highlighted. Clicking another bar asks to force
/// that token at the step's position.
class ProbabilityChart : public QWidget {
    Q_OBJECT
public:
    explicit ProbabilityChart(QWidget* parent = nullptr);

    void setStep(DecodeStepPtr step);
    const DecodeStepPtr& stepShown() const { return m_step; }
    /// Index of the bar of the chosen token, -1 when it is not among the candidates.
    int chosenIndex() const;
    /// Centre of bar i in plot() coordinates (tests click there).
    QPoint barCenter(int i) const;
    QCustomPlot* plot() const { return m_plot; }
    /// Times the plot was asked to redraw, and times its token labels changed (tests: a step with the same
    /// candidates keeps the labels, one shown again redraws nothing).
    int replots() const { return m_replots; }
    int labelChanges() const { return m_labelChanges; }

signals:
    void candidateClicked(qint64 position, qint64 token);

private:
    void onClick(QMouseEvent* event);

    QCustomPlot* m_plot = nullptr;
    QCPBars* m_bars = nullptr;
    QCPBars* m_chosen = nullptr;
    /// The token labels: one ticker for every step, its ticks replaced only when the candidates change.
    QSharedPointer<QCPAxisTickerText> m_ticker;
    DecodeStepPtr m_step;
    int m_replots = 0;
    int m_labelChanges = 0;
};

} // namespace attn::ui
