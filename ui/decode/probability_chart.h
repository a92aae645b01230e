// SPDX-License-Identifier: MIT
#pragma once
#include "session/decode_step.h"

#include <QWidget>

class QCustomPlot;
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

signals:
    void candidateClicked(qint64 position, qint64 token);

private:
    void onClick(QMouseEvent* event);

    QCustomPlot* m_plot = nullptr;
    QCPBars* m_bars = nullptr;
    QCPBars* m_chosen = nullptr;
    DecodeStepPtr m_step;
};

} // namespace attn::ui
