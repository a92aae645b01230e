// SPDX-License-Identifier: MIT
#pragma once
#include "mechanisms/mechanisms_request.h"
#include "model/attention_snapshot.h"

#include <QWidget>

class QLabel;
class QTabWidget;

namespace attn::ui {

class HeatmapView;
class LinePlot;

/// Positional encodings at the head's size: sinusoidal table, RoPE angles and relative-distance decay, T5 relative
/// buckets and the ALiBi bias (applied to the head on the Compare page with the `alibi` variant); the tables are tabs
/// beside the decay curve (six panels in a grid kept under 100 px of cells each at 1024x700).
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
    /// The tables' tabs; the learned table's tab shows only where the model has one.
    QTabWidget* tables() const { return m_tables; }

private:
    HeatmapView* m_sinusoid = nullptr;
    HeatmapView* m_rope = nullptr;
    HeatmapView* m_t5 = nullptr;
    HeatmapView* m_alibi = nullptr;
    HeatmapView* m_learned = nullptr;
    LinePlot* m_decay = nullptr;
    QTabWidget* m_tables = nullptr;
    QLabel* m_note = nullptr;
};

} // namespace attn::ui
