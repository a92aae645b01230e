// SPDX-License-Identifier: MIT
#include "intervention/logit_lens_panel.h"

#include "controller/attention_provider.h"
#include "intervention/ablation_labels.h"
#include "intervention/intervention_runner.h"
#include "intervention/lens_table.h"
#include "mechanisms/line_plot.h"
#include "widgets/noted_view.h"

#include <qcustomplot.h>

#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace attn::ui {

LogitLensPanel::LogitLensPanel(EngineController* engine, const std::string& sessionKey, QWidget* parent)
    : QWidget(parent)
    , m_runner(new InterventionRunner(engine, sessionKey, this))
{
    qRegisterMetaType<attn::ui::LensResultPtr>("attn::ui::LensResultPtr");
    setObjectName("logitLensPanel");
    m_position = new QSpinBox;
    m_position->setObjectName("lensPosition");
    m_position->setPrefix(tr("position "));
    m_position->setToolTip(tr("The input position whose next-token predictions are read out after every layer"));
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setObjectName("cancelLens");
    m_cancel->setToolTip(tr("Stop the lens computation in progress"));
    m_progress = new QProgressBar;
    m_runner->showProgressIn(m_progress, m_cancel);
    m_status = new QLabel;
    m_status->setObjectName("lensStatus");
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table = newLensTable();
    m_table->setObjectName("lensTable");
    m_plot = new LinePlot;
    m_plot->setObjectName("lensPlot");
    // The x axis names the table's rows ("embeddings", "layer 0", ...) under the table's header: numbered "layers
    // applied" 0..L, its ticks read one more than the table's layer on the same readout.
    m_plot->setIntegerX(tr("p(finally chosen token) by layer"), tr("read after"), tr("probability"));
    m_plot->setLegendVisible(false);
    m_plot->setMinimumSize(240, 160);
    m_plot->plot()->yAxis->setRange(0.0, 1.05);

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_position);
    controls->addWidget(m_status, 1);
    controls->addWidget(m_progress);
    controls->addWidget(m_cancel);
    // The readouts above the plot, each as wide as the tab: beside it a table of six rows left most of its column
    // empty, and the plot was a narrow strip. A layout, not a splitter: the table's height follows its rows.
    auto* figure = new QWidget;
    auto* column = new QVBoxLayout(figure);
    column->setContentsMargins(0, 0, 0, 0);
    column->addWidget(m_table);
    column->addWidget(m_plot, 1);
    connect(m_table->verticalHeader(), &QHeaderView::sectionResized, this, &LogitLensPanel::fitTableHeight);
    figure->setObjectName("exportFigure"); // what File > Export figure draws for this tab
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(controls);
    m_views = new NotedView(figure);
    layout->addWidget(m_views, 1);

    connect(m_position, &QSpinBox::valueChanged, this, &LogitLensPanel::showPosition);
    connect(m_runner, &InterventionRunner::failed, this, [this](const QString& message) {
        m_status->setText(tr("Error: %1").arg(message));
        emit resultShown();
    });
    connect(m_runner, &InterventionRunner::cancelled, this, [this] { m_status->setText(tr("Cancelled.")); });
    setModel(nullptr);
}

void LogitLensPanel::setModel(std::shared_ptr<const ModelSummary> summary)
{
    m_summary = summary && summary->config.kind == ModelKind::Decoder ? std::move(summary) : nullptr;
    m_tokens.clear();
    m_result.reset();
    m_runner->forget();
    m_table->setRowCount(0);
    fitTableHeight();
    m_plot->setSeries({});
    m_position->setEnabled(m_summary != nullptr);
    // Without a decoder the note in the views' place says why (`summary`, not moved from then, names the model's
    // kind).
    if (m_summary)
        m_views->showContent();
    else
        m_views->showNote(needsDecoderNote(tr("The logit lens"), summary.get()));
    m_status->setText(m_summary ? tr("Run an input to read each layer's prediction.") : QString());
}

void LogitLensPanel::setRun(std::shared_ptr<const RunResult> run)
{
    setTokens(run->source, tr("the main input"));
}

void LogitLensPanel::setTokens(std::vector<TokenChip> tokens, const QString& origin)
{
    if (!m_summary) return;
    m_tokens = std::move(tokens);
    m_origin = origin;
    m_result.reset();
    if (isVisible()) compute(); // otherwise when the tab is shown: no extra passes per run for a hidden tab
}

void LogitLensPanel::setPosition(int position)
{
    m_position->setValue(position);
    showPosition();
}

int LogitLensPanel::position() const
{
    return m_position->value();
}

QString LogitLensPanel::status() const
{
    return m_status->text();
}

void LogitLensPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (!m_result && !m_runner->busy()) compute();
}

void LogitLensPanel::compute()
{
    if (!m_summary || m_tokens.empty()) return;
    std::vector<int64_t> tokens;
    for (const TokenChip& chip : m_tokens)
        tokens.push_back(chip.id);
    m_status->setText(tr("Reading out every layer…"));
    m_runner->request<LensResultPtr>(
        QString::fromStdString(m_summary->path), std::move(tokens), &computeLens, [this](LensResultPtr result) {
            const bool fresh = !m_result || m_result->tokens.size() != result->tokens.size();
            m_result = std::move(result);
            const int last = static_cast<int>(m_result->tokens.size()) - 1;
            {
                const QSignalBlocker block(m_position);
                m_position->setRange(0, last);
                if (fresh) m_position->setValue(last); // the prediction after the whole input
            }
            showPosition();
            emit resultShown();
        });
}

void LogitLensPanel::fitTableHeight()
{
    // Header and frame always; an empty table (no lens for this model) keeps room for a few rows.
    const int rows = m_table->rowCount() > 0 ? m_table->verticalHeader()->length()
                                             : 4 * m_table->verticalHeader()->defaultSectionSize();
    m_table->setMaximumHeight(m_table->horizontalHeader()->height() + rows + 2 * m_table->frameWidth());
}

void LogitLensPanel::showPosition()
{
    if (!m_result) return;
    const LogitLens& lens = m_result->lens;
    const int64_t n = lens.chosenProbability.dim(1), layers = lens.chosenProbability.dim(0) - 1;
    const int64_t at = std::clamp<int64_t>(m_position->value(), 0, n - 1);
    const int64_t chosen = lens.chosen[static_cast<size_t>(at)];
    fillLensTable(m_table, *m_result, at, false);
    fitTableHeight();
    PlotSeries series { tr("p(chosen)"), {}, {}, QColor(40, 90, 200) };
    for (int64_t l = 0; l <= layers; ++l) {
        series.x.push_back(static_cast<double>(l));
        series.y.push_back(lens.chosenProbability.data()[l * n + at]);
    }
    m_plot->setSeries({ series });
    nameReadouts();
    m_plot->plot()->yAxis->setRange(0.0, 1.05); // a probability: the whole scale, so layers compare across positions
    m_plot->plot()->replot(QCustomPlot::rpQueuedReplot);
    m_status->setText(tr("After \"%1\" (position %2 of %3) the model predicts \"%4\"; rows: what the residual "
                         "stream predicts after each layer.")
                          .arg(shownToken(m_result->text, m_result->tokens[static_cast<size_t>(at)]))
                          .arg(at)
                          .arg(m_origin, shownToken(m_result->text, chosen)));
}

void LogitLensPanel::nameReadouts()
{
    if (!m_result) return;
    const int64_t layers = m_result->lens.chosenProbability.dim(0) - 1;
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    QCPAxis* axis = m_plot->plot()->xAxis;
    int widest = 0;
    for (int64_t r = 0; r <= layers; ++r) {
        const QString name = lensReadoutName(r, layers, false);
        ticker->addTick(static_cast<double>(r), name);
        widest = std::max(widest, QFontMetrics(axis->tickLabelFont()).horizontalAdvance(name));
    }
    axis->setTicker(ticker);
    // Turned where the names side by side would run together (a deep model in a narrow window); the axis width does
    // not depend on the turn, so the last layout's width decides.
    const QCPAxisRect* rect = m_plot->plot()->axisRect();
    const int room = m_plot->plot()->width() - rect->margins().left() - rect->margins().right();
    axis->setTickLabelRotation(room > 0 && (layers + 1) * (widest + 8) > room ? -60.0 : 0.0);
}

void LogitLensPanel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    nameReadouts();
}

} // namespace attn::ui
