// SPDX-License-Identifier: MIT
#pragma once
#include "mechanisms/mechanisms_request.h"
#include "model/attention_snapshot.h"

#include <QWidget>

class QLabel;
class QTabWidget;
class QTableWidget;

namespace attn::ui {

class HeatmapView;

/// The head's exact heatmap beside the variant's or the difference's (two tabs: three maps side by side left each
/// about 65 px of cells at 1024 px), over the numbers that say what the variant keeps and loses.
class ComparePage : public QWidget {
    Q_OBJECT
public:
    explicit ComparePage(QWidget* parent = nullptr);
    /// The result's maps (MechanismsMaps) and numbers.
    void showResult(const MechanismsResult& result);

    HeatmapView* exactView() const { return m_exact; }
    HeatmapView* variantView() const { return m_variant; }
    HeatmapView* differenceView() const { return m_difference; }
    /// The tabs of the variant's map and the difference's, beside the exact map.
    QTabWidget* variantTabs() const { return m_variantTabs; }
    QTableWidget* metricsTable() const { return m_metrics; }
    QLabel* notes() const { return m_notes; }

private:
    HeatmapView* m_exact = nullptr;
    HeatmapView* m_variant = nullptr;
    HeatmapView* m_difference = nullptr;
    QTabWidget* m_variantTabs = nullptr;
    QTableWidget* m_metrics = nullptr;
    QLabel* m_notes = nullptr;
};

/// The metrics table's text of a value: 4 significant digits, "n/a" for NaN.
QString metricText(double value);

/// Why a page that needs a self-attention head shows nothing for `result` (an RNN's learned cross-attention), or
/// empty when it applies.
QString selfAttentionOnly(const MechanismsResult& result);

} // namespace attn::ui
