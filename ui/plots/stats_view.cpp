// SPDX-License-Identifier: MIT
#include "plots/stats_view.h"

#include "plots/color_gradient.h"
#include "plots/color_map_grid.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>
#include <cstdlib>

namespace attn::ui {

namespace {
/// Every metric undefined: a head whose statistics the engine has not streamed yet.
HeadStats pendingStats() {
    const double nan = std::nan("");
    return { nan, nan, nan, nan, nan, nan, 0 };
}

/// A column header on two lines, broken at the space or after the hyphen nearest its middle: on one line the ten
/// columns scrolled sideways in a 1024 px window ("first-token mass" is much wider than its numbers).
QString twoLines(const QString& name)
{
    qsizetype best = -1; // the break: a space (dropped) or the character after a hyphen
    for (qsizetype i = 1; i < name.size(); ++i)
        if ((name[i] == ' ' || name[i - 1] == '-')
            && (best < 0 || std::abs(2 * i - name.size()) < std::abs(2 * best - name.size())))
            best = i;
    if (best < 0) return name;
    return name.left(best) + '\n' + name.mid(name[best] == ' ' ? best + 1 : best);
}
} // namespace

QString StatsView::metricName(Metric metric) {
    switch (metric) {
    case Entropy:
        return tr("entropy (nats)");
    case NormalizedEntropy:
        return tr("entropy / uniform");
    case MeanDistance:
        return tr("mean distance");
    case SinkMass:
        return tr("first-token mass");
    case PreviousToken:
        return tr("previous-token");
    case Diagonal:
        return tr("diagonal");
    case MetricCount:
        break;
    }
    return {};
}

double StatsView::metricValue(const HeadStats& s, Metric metric) {
    switch (metric) {
    case Entropy:
        return s.entropy;
    case NormalizedEntropy:
        return s.normalizedEntropy;
    case MeanDistance:
        return s.meanDistance;
    case SinkMass:
        return s.sinkMass;
    case PreviousToken:
        return s.previousToken;
    case Diagonal:
        return s.diagonal;
    case MetricCount:
        break;
    }
    return 0;
}

bool StatsView::isPositional(Metric metric) {
    return metric == MeanDistance || metric == PreviousToken || metric == Diagonal;
}

StatsView::StatsView(QWidget* parent)
    : QWidget(parent) {
    m_metricBox = new QComboBox(this);
    m_metricBox->setToolTip(tr("The statistic the layers x heads map shows"));
    m_metricBox->setObjectName("statsMetric");
    for (int m = 0; m < MetricCount; ++m)
        m_metricBox->addItem(metricName(static_cast<Metric>(m)), m);

    m_plot = new QCustomPlot(this);
    m_plot->setObjectName("statsPlot");
    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_map->setInterpolate(false);
    auto* scale = new QCPColorScale(m_plot);
    m_plot->plotLayout()->addElement(0, 1, scale);
    m_map->setColorScale(scale);
    m_map->setGradient(colorGradient(Colormap::Viridis)); // after setColorScale, which imposes the scale's gradient
    m_plot->xAxis->setLabel(tr("head"));
    m_plot->yAxis->setLabel(tr("layer"));
    m_plot->yAxis->setRangeReversed(true);
    m_plot->setMinimumHeight(200);

    m_model = new QStandardItemModel(this);
    m_table = new QTableView(this);
    m_table->setObjectName("statsTable");
    m_table->setModel(m_model);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    // The columns share the table's width (the roles as wide as their text): sized to their contents the ten of
    // them scrolled sideways at 1024 px.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Metric:"), this));
    top->addWidget(m_metricBox);
    top->addStretch(1);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_plot);
    split->addWidget(m_table);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(split, 1);

    connect(m_metricBox, &QComboBox::currentIndexChanged, this,
        [this] { setMetric(static_cast<Metric>(m_metricBox->currentData().toInt())); });
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        if (!m_snapshot) return;
        const auto h = static_cast<int64_t>(std::lround(m_plot->xAxis->pixelToCoord(e->pos().x())));
        const auto l = static_cast<int64_t>(std::lround(m_plot->yAxis->pixelToCoord(e->pos().y())));
        if (l >= 0 && h >= 0 && l < m_snapshot->numLayers() && h < m_snapshot->numHeads()) emit headActivated(l, h);
    });
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex& index) {
        const int row = index.row();
        emit headActivated(m_model->item(row, 0)->data(Qt::DisplayRole).toLongLong(),
            m_model->item(row, 1)->data(Qt::DisplayRole).toLongLong());
    });
}

StatsView::~StatsView() = default;

void StatsView::setSnapshot(SnapshotPtr snapshot) {
    m_snapshot = std::move(snapshot);
    const bool cross = m_snapshot && m_snapshot->isCross();
    auto* metrics = qobject_cast<QStandardItemModel*>(m_metricBox->model());
    for (int m = 0; m < MetricCount; ++m)
        metrics->item(m_metricBox->findData(m))->setEnabled(!cross || !isPositional(static_cast<Metric>(m)));
    if (cross && isPositional(m_metric)) m_metric = Entropy;
    const QSignalBlocker block(m_metricBox);
    m_metricBox->setCurrentIndex(m_metricBox->findData(static_cast<int>(m_metric)));
    fillTable();
    fillPlot();
}

void StatsView::setMetric(Metric metric) {
    m_metric = metric;
    m_metricBox->setCurrentIndex(m_metricBox->findData(static_cast<int>(metric)));
    fillPlot();
}

double StatsView::plottedValue(int64_t layer, int64_t head) const {
    return m_map->data()->cell(static_cast<int>(head), static_cast<int>(layer));
}

void StatsView::fillTable() {
    m_model->clear();
    QStringList headers { tr("layer"), tr("head"), twoLines(tr("kv head")) };
    for (int m = 0; m < MetricCount; ++m)
        headers << twoLines(metricName(static_cast<Metric>(m)));
    headers << tr("roles");
    m_model->setHorizontalHeaderLabels(headers);
    if (!m_snapshot) return;
    for (int64_t l = 0; l < m_snapshot->numLayers(); ++l)
        for (int64_t h = 0; h < m_snapshot->numHeads(); ++h) {
            // Heads still summarized on the engine thread show as undefined until the next refresh.
            const bool ready = m_snapshot->statsReady(l, h);
            const HeadStats s = ready ? m_snapshot->stats(l, h) : pendingStats();
            QList<QStandardItem*> row;
            // Numbers go in as numbers so that sorting is numeric.
            const auto number = [](double v) {
                auto* item = new QStandardItem;
                if (std::isnan(v))
                    item->setText(QStringLiteral("—")); // undefined (a positional metric of cross-attention)
                else
                    item->setData(v, Qt::DisplayRole);
                return item;
            };
            row << number(static_cast<double>(l)) << number(static_cast<double>(h))
                << number(static_cast<double>(m_snapshot->kvHeadOf(h)));
            for (int m = 0; m < MetricCount; ++m)
                row << number(std::round(metricValue(s, static_cast<Metric>(m)) * 1e4) / 1e4);
            row << new QStandardItem(
                ready ? QString::fromStdString(headRoleNames(classifyHead(s))) : tr("computing…"));
            m_model->appendRow(row);
        }
    m_table->horizontalHeader()->setSectionResizeMode(m_model->columnCount() - 1, QHeaderView::ResizeToContents);
}

void StatsView::fillPlot() {
    auto* data = m_map->data();
    if (!m_snapshot) {
        data->clear();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const int64_t layers = m_snapshot->numLayers(), heads = m_snapshot->numHeads();
    fillColorMapGrid(data, { static_cast<int>(heads), 0, static_cast<double>(heads - 1) },
        { static_cast<int>(layers), 0, static_cast<double>(layers - 1) }, [&](int h, int l) {
            return m_snapshot->statsReady(l, h) ? metricValue(m_snapshot->stats(l, h), m_metric) : std::nan("");
        });
    m_map->rescaleDataRange(true);
    m_map->colorScale()->axis()->setLabel(metricName(m_metric));
    m_map->rescaleAxes();
    // Integer ticks only: layers and heads are indices.
    for (QCPAxis* axis : { m_plot->xAxis, m_plot->yAxis }) {
        auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
        ticker->setTickStep(1.0);
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        axis->setTicker(ticker);
        axis->setSubTicks(false);
    }
    m_plot->xAxis->setRange(-0.5, static_cast<double>(heads) - 0.5);
    m_plot->yAxis->setRange(-0.5, static_cast<double>(layers) - 0.5);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace attn::ui
