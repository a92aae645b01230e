// SPDX-License-Identifier: MIT
#include "intervention/intervention_panel.h"

#include "controller/attention_provider.h"
#include "export/figure_export.h"
#include "intervention/ablation_labels.h"
#include "intervention/intervention_runner.h"
#include "intervention/topk_table.h"
#include "mechanisms/line_plot.h"
#include "mechanisms/matrix_snapshot.h"
#include "plots/heatmap_view.h"
#include "widgets/noted_view.h"

#include <QAction>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>

namespace attn::ui {

namespace {
constexpr int kKlPlotHeight = 175;
constexpr int kDifferenceWidth = 300;
constexpr int kDifferenceHeight = 230;
constexpr int kShare = 1000; ///< a unit of the splitters' initial shares
constexpr int kHeadChangeHeight = 180; ///< a layer's row of cells ~20 px high on a model of six layers
} // namespace

InterventionPanel::InterventionPanel(EngineController* engine, const std::string& sessionKey, QWidget* parent)
    : QWidget(parent)
    , m_engine(engine)
    , m_runner(new InterventionRunner(engine, sessionKey, this))
{
    setObjectName("interventionPanel");
    m_mode = new QComboBox;
    m_mode->setObjectName("ablationMode");
    m_mode->addItem(tr("zero"), static_cast<int>(AblationMode::Zero));
    m_mode->addItem(tr("mean over positions"), static_cast<int>(AblationMode::Mean));
    m_mode->addItem(tr("scale by"), static_cast<int>(AblationMode::Scale));
    m_mode->setToolTip(tr("Zero removes the head's output (HF head_mask 0); mean replaces it at every position by its "
                          "mean over the input; scale multiplies its attention probabilities by the factor"));
    m_factor = new QDoubleSpinBox;
    m_factor->setObjectName("ablationFactor");
    m_factor->setRange(-10.0, 10.0);
    m_factor->setSingleStep(0.25);
    m_factor->setValue(0.5);
    m_factor->setEnabled(false);
    m_factor->setToolTip(tr("The factor of \"scale by\" (1 keeps the head, 0 removes it)"));
    m_ablateButton = new QPushButton(tr("&Ablate L0.H0"));
    m_ablateButton->setObjectName("ablateButton");
    m_ablateButton->setToolTip(tr("Ablate the selected head (toolbar or heatmap) with the mode at its left; the "
                                  "All heads grid's right-click menu ablates any head"));
    m_removeButton = new QPushButton(tr("Re&move"));
    m_removeButton->setObjectName("removeIntervention");
    m_removeButton->setToolTip(tr("Remove the intervention selected in the list"));
    m_undoButton = new QPushButton(tr("&Undo"));
    m_undoButton->setObjectName("undoIntervention");
    m_undoButton->setToolTip(tr("Remove the last intervention (Ctrl+Z)"));
    m_cancelButton = new QPushButton(tr("Cancel"));
    m_cancelButton->setObjectName("cancelIntervention");
    m_cancelButton->setToolTip(tr("Stop the re-run in progress"));
    m_progress = new QProgressBar;
    m_progress->setObjectName("interventionProgress");
    m_runner->showProgressIn(m_progress, m_cancelButton);

    m_ablate = new QAction(tr("&Ablate selected head"), this);
    m_ablate->setToolTip(m_ablateButton->toolTip());
    m_undo = new QAction(tr("&Undo last intervention"), this);
    m_undo->setObjectName("actionUndoIntervention");
    m_undo->setShortcut(QKeySequence::Undo);
    m_clear = new QAction(tr("&Clear interventions"), this);
    connect(m_ablate, &QAction::triggered, this, &InterventionPanel::ablateSelected);
    connect(m_undo, &QAction::triggered, this, &InterventionPanel::undo);
    connect(m_clear, &QAction::triggered, this, &InterventionPanel::clear);
    connect(m_ablateButton, &QPushButton::clicked, this, &InterventionPanel::ablateSelected);
    connect(m_undoButton, &QPushButton::clicked, this, &InterventionPanel::undo);
    connect(m_mode, &QComboBox::currentIndexChanged, this, [this] {
        m_factor->setEnabled(static_cast<AblationMode>(m_mode->currentData().toInt()) == AblationMode::Scale);
    });

    m_list = new QListWidget;
    m_list->setObjectName("activeInterventions");
    m_list->setToolTip(tr("The interventions applied together, oldest first"));
    connect(m_removeButton, &QPushButton::clicked, this, [this] {
        if (m_list->currentRow() >= 0) removeAt(m_list->currentRow());
    });
    m_table = newTopKTable();
    m_kl = new LinePlot;
    m_kl->setObjectName("klPlot");
    m_kl->setIntegerX(tr("KL(unmodified || ablated) per position"), tr("position"), tr("nats"));
    m_kl->setLegendVisible(false);
    m_kl->setYRange(0.0, 1.0); // KL is never negative; showResult sets the top
    // 175 px keeps ~100 px of curve between the axes: at 150 the nats axis had a tick every 12 px at 1024x700.
    m_kl->setMinimumSize(240, kKlPlotHeight);
    m_difference = new HeatmapView;
    m_difference->setObjectName("attentionDifference");
    m_difference->setColormap(Colormap::Diverging);
    m_difference->setControlsVisible(false);
    HeatmapOptions signedRange;
    signedRange.symmetric = true; // zero (no change) is the middle colour, also for a head the ablation leaves alone
    m_difference->setOptions(signedRange);
    // Room for 150 x 100 px of cells inside its token labels, title and colour bar (Sizes/Layout asserts the cells).
    m_difference->setMinimumSize(kDifferenceWidth, kDifferenceHeight);
    m_difference->setDeriver(std::bind_front(&EngineController::derive, engine)); // a long input's overview
    m_difference->setCaption({ .title = tr("difference"), .value = tr("difference") });
    m_difference->setToolTip(tr("The selected head's attention ablated minus unmodified (red: more, blue: less)"));
    m_headChange = new HeatmapView;
    m_headChange->setObjectName("headChange");
    m_headChange->setControlsVisible(false);
    m_headChange->setMinimumSize(240, kHeadChangeHeight); // the plot inside keeps its 220 px
    m_headChange->setCaption(
        { .title = tr("all heads"), .x = tr("head"), .y = tr("layer"), .value = tr("total variation") });
    m_headChange->setToolTip(tr("Per head, the mean over query rows of half the summed absolute difference of its "
                                "attention row (0 unchanged, 1 moved entirely elsewhere)"));
    m_continuation = new QLabel;
    m_continuation->setObjectName("continuationLabel");
    m_continuation->setWordWrap(true);
    m_continuation->setTextFormat(Qt::RichText);
    m_continuation->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_continuation->setToolTip(tr("%1 greedy tokens after the input, decoded unmodified and under the interventions "
                                  "(a mean ablation takes the mean over the sequence so far)")
                                   .arg(kContinuationTokens));
    connect(m_table, &QTableWidget::currentCellChanged, this, [this](int row) { m_kl->setMarkerX(row); });

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_mode);
    controls->addWidget(m_factor);
    controls->addWidget(m_ablateButton);
    controls->addSpacing(12);
    controls->addWidget(m_removeButton);
    controls->addWidget(m_undoButton);
    controls->addStretch(1);
    controls->addWidget(m_progress);
    controls->addWidget(m_cancelButton);
    m_status = new QLabel;
    m_status->setObjectName("interventionStatus");
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // Every head's change beside the list of interventions, where the list's short lines left most of the row empty:
    // beside the selected head's difference map, under the curve, it left that map ~50 x 90 px of cells at 1024x700.
    // The continuation over the list, not across the tab: its two lines went from the plots' height at 1024x700.
    auto* continuationAndList = new QVBoxLayout;
    continuationAndList->addWidget(m_continuation);
    continuationAndList->addWidget(m_list, 1);
    auto* top = new QWidget;
    auto* topLayout = new QHBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addLayout(continuationAndList, 2);
    topLayout->addWidget(m_headChange, 1);
    // A third of the height over the table, at least the map's minimum: at a fixed 180 px the map stayed a thumbnail
    // of ~100 x 100 px of cells beside an empty list at 2560x1440.
    auto* left = new QSplitter(Qt::Vertical);
    left->addWidget(top);
    left->addWidget(m_table);
    left->setChildrenCollapsible(false);
    left->setSizes({ kShare, 2 * kShare });
    left->setStretchFactor(0, 1);
    left->setStretchFactor(1, 2);
    auto* right = new QSplitter(Qt::Vertical);
    right->addWidget(m_kl);
    right->addWidget(m_difference);
    right->setChildrenCollapsible(false);
    // Shares, not pixels (setSizes scales them to the splitter): the map's cells need the height more than the curve,
    // which reads at its minimum (the map gets all but the curve's minimum at 1024x700).
    right->setSizes({ 2 * kShare, 3 * kShare });
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(left);
    split->addWidget(right);
    // 3:2 from the start: left to their size hints, the table's wide columns took all but the maps' minimum.
    split->setSizes({ 3 * kShare, 2 * kShare });
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);
    // File > Export figure draws the whole diff, not its right half: once the all-heads map moved beside the list, the
    // curve and the difference map alone were exported without it.
    split->setObjectName(kFigureObjectName);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(controls);
    layout->addWidget(m_status);
    m_views = new NotedView(split);
    layout->addWidget(m_views, 1);

    connect(m_runner, &InterventionRunner::failed, this, [this](const QString& message) {
        setStatus(tr("Error: %1").arg(message));
        emit resultShown();
    });
    connect(m_runner, &InterventionRunner::cancelled, this,
        [this] { setStatus(tr("Cancelled: the views still show the previous diff; change the list to run again.")); });
    setModel(nullptr);
}

void InterventionPanel::setModel(std::shared_ptr<const ModelSummary> summary)
{
    m_summary = summary && summary->config.kind == ModelKind::Decoder ? std::move(summary) : nullptr;
    m_run.reset();
    m_ablations.clear();
    m_result.reset();
    ++m_differenceRequest;
    m_differenceStale = false;
    m_runner->forget();
    m_table->setRowCount(0);
    m_kl->setSeries({});
    m_difference->setSnapshot(nullptr);
    m_headChange->setSnapshot(nullptr);
    m_continuation->clear();
    m_continuation->hide(); // no empty line at 1024x700 for models this tab cannot change
    for (QWidget* w : std::initializer_list<QWidget*> { m_mode, m_factor, m_ablateButton })
        w->setEnabled(m_summary != nullptr && (w != m_factor || m_mode->currentIndex() == 2));
    m_ablate->setEnabled(m_summary != nullptr);
    updateList();
    // Without a decoder the note in the views' place says why (`summary`, not moved from then, names the model's
    // kind); the status line would repeat it.
    if (m_summary)
        m_views->showContent();
    else
        m_views->showNote(needsDecoderNote(tr("Ablating heads"), summary.get()));
    m_status->setVisible(m_summary != nullptr);
    setStatus(m_summary ? tr("Run an input, then ablate a head: here, or right-click it in All heads.") : QString());
}

void InterventionPanel::setRun(std::shared_ptr<const RunResult> run)
{
    if (!m_summary) return;
    m_run = std::move(run);
    m_result.reset();
    // With nothing ablated only a visible tab computes the unmodified numbers: no second pass per run otherwise.
    if (!m_ablations.empty() || isVisible()) rerun();
}

void InterventionPanel::setHead(int64_t layer, int64_t head)
{
    m_layer = layer;
    m_head = head;
    m_ablateButton->setText(tr("&Ablate L%1.H%2").arg(layer).arg(head));
    requestDifference();
}

void InterventionPanel::addAblation(Ablation ablation)
{
    if (!m_summary || ablation.heads.empty()) return;
    m_ablations.push_back(std::move(ablation));
    updateList();
    rerun();
}

void InterventionPanel::ablateSelected()
{
    Ablation a;
    a.heads = { { m_layer, m_head } };
    a.mode = static_cast<AblationMode>(m_mode->currentData().toInt());
    a.factor = a.mode == AblationMode::Scale ? static_cast<float>(m_factor->value()) : 0.0f;
    addAblation(std::move(a));
}

void InterventionPanel::removeAt(int index)
{
    if (index < 0 || index >= static_cast<int>(m_ablations.size())) return;
    m_ablations.erase(m_ablations.begin() + index);
    updateList();
    rerun();
}

void InterventionPanel::undo()
{
    removeAt(static_cast<int>(m_ablations.size()) - 1);
}

void InterventionPanel::clear()
{
    if (m_ablations.empty()) return;
    m_ablations.clear();
    updateList();
    rerun();
}

std::map<std::pair<int64_t, int64_t>, QString> InterventionPanel::marks() const
{
    return headMarks(m_ablations);
}

QMenu* InterventionPanel::headMenu(int64_t layer, int64_t head, QWidget* parent)
{
    auto* menu = new QMenu(parent);
    menu->setObjectName("headContextMenu");
    menu->setAttribute(Qt::WA_DeleteOnClose);
    const QString name = QStringLiteral("L%1.H%2").arg(layer).arg(head);
    const auto add = [&](const QString& text, const char* object, AblationMode mode, float factor) {
        QAction* action = menu->addAction(text.arg(name), this, [this, layer, head, mode, factor] {
            addAblation({ { { layer, head } }, mode, factor });
        });
        action->setObjectName(object);
        action->setEnabled(m_summary != nullptr);
    };
    add(tr("Ablate %1: zero"), "ablateZero", AblationMode::Zero, 0.0f);
    add(tr("Ablate %1: mean over positions"), "ablateMean", AblationMode::Mean, 0.0f);
    add(tr("Ablate %1: scale x0.5"), "ablateHalf", AblationMode::Scale, 0.5f);
    add(tr("Amplify %1: scale x2"), "ablateDouble", AblationMode::Scale, 2.0f);
    if (!headMarks(m_ablations).contains({ layer, head })) return menu;
    menu->addSeparator();
    menu->addAction(tr("Remove the ablations of %1").arg(name), this,
            [this, layer, head] {
                for (Ablation& a : m_ablations)
                    std::erase(a.heads, HeadRef { layer, head });
                std::erase_if(m_ablations, [](const Ablation& a) { return a.heads.empty(); });
                updateList();
                rerun();
            })
        ->setObjectName("removeHeadAblations");
    return menu;
}

void InterventionPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (!m_result && !m_runner->busy())
        rerun(); // the unmodified numbers of a run made while the tab was hidden
    else if (m_differenceStale)
        requestDifference();
}

QString InterventionPanel::continuationText() const
{
    return m_continuation->text();
}

QString InterventionPanel::status() const
{
    return m_status->text();
}

void InterventionPanel::rerun()
{
    if (!m_summary || !m_run || m_run->source.empty()) return;
    std::vector<int64_t> tokens;
    for (const TokenChip& chip : m_run->source)
        tokens.push_back(chip.id);
    setStatus(tr("Running %1…")
                  .arg(m_ablations.empty() ? tr("the unmodified input") : m_list->item(m_list->count() - 1)->text()));
    m_runner->request<Answer>(
        QString::fromStdString(m_summary->path), std::move(tokens),
        [ablations = m_ablations, layer = m_layer, head = m_head](const KeptRun& kept, const RerunHooks& hooks) {
            Answer answer { computeAblation(kept, ablations, hooks), {}, layer, head };
            answer.difference = attentionDifference(*answer.result, layer, head);
            return answer;
        },
        [this](Answer answer) { showResult(std::move(answer)); });
}

void InterventionPanel::showResult(Answer answer)
{
    m_result = std::move(answer.result);
    ++m_differenceRequest; // a difference on its way is of the previous diff
    if (answer.layer == m_layer && answer.head == m_head)
        showDifference(answer.difference);
    else
        requestDifference();
    fillTopKTable(m_table, *m_result);
    const Tensor& kl = m_result->diff.kl;
    PlotSeries series { tr("KL"), {}, {}, QColor(200, 40, 40) };
    for (int64_t i = 0; i < kl.numel(); ++i) {
        series.x.push_back(static_cast<double>(i));
        series.y.push_back(kl.data()[i]);
    }
    m_kl->setSeries({ series });
    // From 0 (KL is never negative; an unmodified run's zeros read -3 .. 3) to a little above the largest value.
    const float largest = kl.numel() > 0 ? *std::max_element(kl.storage().begin(), kl.storage().end()) : 0.0f;
    m_kl->setYRange(0.0, largest > 0.0f ? 1.1 * static_cast<double>(largest) : 1.0);
    m_kl->setMarkerX(m_table->currentRow());
    const Tensor& change = m_result->diff.headChange;
    Mat perHead(change.dim(0), change.dim(1));
    for (int64_t l = 0; l < change.dim(0); ++l)
        for (int64_t h = 0; h < change.dim(1); ++h)
            perHead(l, h) = change.data()[l * change.dim(1) + h];
    m_headChange->setSnapshot(
        matrixSnapshot(perHead, indexChips(QString(), change.dim(0)), indexChips(QString(), change.dim(1))));
    m_continuation->setText(
        continuationHtml(m_result->text, m_result->cleanContinuation, m_result->changedContinuation));
    m_continuation->show();
    if (m_result->ablations.empty()) {
        setStatus(tr("No intervention: these are the unmodified run's numbers (KL 0). Ablate a head here or "
                     "right-click it in All heads."));
    } else {
        const auto worst = std::max_element(kl.storage().begin(), kl.storage().end());
        const auto at = static_cast<size_t>(worst - kl.storage().begin());
        const auto count = static_cast<int>(m_result->ablations.size());
        setStatus(tr("%1 active; the largest change is at position %2 (\"%3\"): KL %4 nats.")
                      .arg(count == 1 ? tr("1 intervention") : tr("%1 interventions").arg(count))
                      .arg(at)
                      .arg(QString::fromStdString(m_result->text.at(m_result->tokens[at])))
                      .arg(static_cast<double>(*worst), 0, 'g', 4));
    }
    emit resultShown();
}

void InterventionPanel::requestDifference()
{
    if (!m_result) return;
    m_differenceStale = !isVisible();
    if (m_differenceStale) return; // a hidden tab builds no 4M-cell difference per head switch
    m_engine->post<AttentionDifference>(
        this,
        [result = m_result, layer = m_layer, head = m_head](
            EngineContext&) { return attentionDifference(*result, layer, head); },
        [this, id = ++m_differenceRequest](AttentionDifference difference) {
            if (id == m_differenceRequest) showDifference(difference);
        },
        {});
}

void InterventionPanel::showDifference(const AttentionDifference& difference)
{
    if (!difference.snapshot) return;
    m_difference->setSnapshot(difference.snapshot);
    // A mean ablation leaves its head's own attention alone (it replaces the head's output): say so.
    const QString name = QStringLiteral("L%1.H%2").arg(difference.layer).arg(difference.head);
    m_difference->setCaption(
        // "L0.H0 ablated − unmodified" was cut at both ends in a 240 px map; the tooltip says what is subtracted.
        { .title = difference.unchanged ? tr("%1: no change").arg(name) : tr("%1 difference").arg(name),
            .value = tr("difference") });
}

void InterventionPanel::updateList()
{
    m_list->clear();
    for (const Ablation& a : m_ablations)
        m_list->addItem(ablationLabel(a));
    if (m_ablations.empty()) m_list->addItem(tr("(no intervention: the unmodified model)"));
    m_list->setCurrentRow(m_list->count() - 1);
    m_removeButton->setEnabled(!m_ablations.empty());
    m_undoButton->setEnabled(!m_ablations.empty());
    m_undo->setEnabled(!m_ablations.empty());
    m_clear->setEnabled(!m_ablations.empty());
    emit ablationsChanged();
}

void InterventionPanel::setStatus(const QString& text)
{
    m_status->setText(text);
}

} // namespace attn::ui
