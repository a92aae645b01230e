// SPDX-License-Identifier: MIT
#pragma once
#include "session/decode_step.h"

#include <QWidget>

class QCustomPlot;
class QCPItemStraightLine;
class QSlider;

namespace attn::ui {

/// Every step of the timeline: the chosen token's probability and the entropy of its distribution over positions,
/// with a slider (and clicks on the plot) to scrub back to any step.
class TimelineView : public QWidget {
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);

    void setSteps(const std::vector<DecodeStepPtr>& steps);
    /// Moves the cursor without emitting stepSelected.
    void setCurrent(int64_t index);
    int64_t current() const;
    QSlider* slider() const { return m_slider; }
    /// The dashed line at the step shown (hidden while there is no step).
    QCPItemStraightLine* cursor() const { return m_cursor; }

signals:
    void stepSelected(qint64 index);

private:
    QCustomPlot* m_plot = nullptr;
    QCPItemStraightLine* m_cursor = nullptr;
    QSlider* m_slider = nullptr;
};

} // namespace attn::ui
