// SPDX-License-Identifier: MIT
#pragma once
#include "model/attention_snapshot.h"

#include <QWidget>

class QCustomPlot;
class QCPColorMap;
class QComboBox;
class QStandardItemModel;
class QTableView;

namespace attn::ui {

/// Head statistics: one metric as a layers x heads heatmap, and every metric in a sortable table with role tags.
/// Clicking a cell or a row opens that head.
class StatsView : public QWidget {
    Q_OBJECT
public:
    /// The metrics, in table column order after (layer, head, kv head).
    enum Metric { Entropy, NormalizedEntropy, MeanDistance, SinkMass, PreviousToken, Diagonal, MetricCount };
    static QString metricName(Metric metric);
    static double metricValue(const HeadStats& stats, Metric metric);
    /// Mean distance, previous token and diagonal compare query and key positions: undefined for cross-attention,
    /// where the view offers only the other metrics.
    static bool isPositional(Metric metric);

    explicit StatsView(QWidget* parent = nullptr);
    ~StatsView() override;

    void setSnapshot(SnapshotPtr snapshot);
    void setMetric(Metric metric);
    Metric metric() const { return m_metric; }
    QStandardItemModel* tableModel() const { return m_model; }
    QTableView* table() const { return m_table; }
    /// The layers x heads plot alone: what figure exports draw.
    QCustomPlot* plot() const { return m_plot; }
    /// The value drawn in the heatmap cell of (layer, head).
    double plottedValue(int64_t layer, int64_t head) const;

signals:
    void headActivated(qint64 layer, qint64 head);

private:
    void fillTable();
    void fillPlot();

    QComboBox* m_metricBox = nullptr;
    QCustomPlot* m_plot = nullptr;
    QCPColorMap* m_map = nullptr;
    QStandardItemModel* m_model = nullptr;
    QTableView* m_table = nullptr;
    SnapshotPtr m_snapshot;
    Metric m_metric = Entropy;
};

} // namespace attn::ui
