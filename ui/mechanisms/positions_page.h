// SPDX-License-Identifier: MIT
#pragma once
#include "mechanisms/mechanisms_request.h"
#include "model/attention_snapshot.h"

#include <QWidget>

class QLabel;

namespace attn::ui {

class HeatmapView;
class LinePlot;

/// Positional encodings at the head's size: sinusoidal table, RoPE angles and relative-distance decay, T5 relative
/// buckets and the ALiBi bias (applied to the head on the Compare page with the `alibi` variant).
class PositionsPage : public QWidget {
    Q_OBJECT
public:
    explicit PositionsPage(QWidget* parent = nullptr);
    void showResult(const MechanismsResult& result);
    HeatmapView* sinusoidView() const { return m_sinusoid; }
    HeatmapView* ropeView() const { return m_rope; }
    HeatmapView* t5View() const { return m_t5; }
    HeatmapView* alibiView() const { return m_alibi; }
    HeatmapView* learnedView() const { return m_learned; }
    LinePlot* decayPlot() const { return m_decay; }

private:
    HeatmapView* m_sinusoid = nullptr;
    HeatmapView* m_rope = nullptr;
    HeatmapView* m_t5 = nullptr;
    HeatmapView* m_alibi = nullptr;
    HeatmapView* m_learned = nullptr;
    LinePlot* m_decay = nullptr;
    QLabel* m_note = nullptr;
};

} // namespace attn::ui
