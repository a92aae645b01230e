// SPDX-License-Identifier: MIT
#include "pruning/pruning_panel.h"

#include "controller/attention_provider.h"
#include "intervention/intervention_runner.h"
#include "mechanisms/line_plot.h"
#include "mechanisms/matrix_snapshot.h"
#include "model/model_source.h"
#include "plots/heatmap_view.h"

#include <qcustomplot.h>

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace attn::ui {

namespace {

constexpr const char* kSessionKey = "pruning"; // nothing is kept under it: each request loads nothing but the model
constexpr int kClickSlopPx = 4; // a press and release further apart is a pan of the map, not a click

QString headName(int64_t layer, int64_t head)
{
    return QStringLiteral("L%1.H%2").arg(layer).arg(head);
}

} // namespace

PruningPanel::PruningPanel(EngineController* engine, QWidget* parent)
    : QWidget(parent)
    , m_runner(new InterventionRunner(engine, kSessionKey, this))
{
    qRegisterMetaType<attn::ui::PruningResultPtr>("attn::ui::PruningResultPtr");
    setObjectName("pruningPanel");
    m_pruneInput = new QPushButton(tr("Prune the input"));
    m_pruneInput->setObjectName("pruneInput");
    m_pruneCorpus = new QPushButton(tr("Prune a text file…"));
    m_pruneCorpus->setObjectName("pruneCorpus"); // its text and tooltip follow the model (setModel)
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setObjectName("cancelPruning");
    m_cancel->setToolTip(tr("Stop the pruning in progress"));
    m_progress = new QProgressBar;
    m_runner->showProgressIn(m_progress, m_cancel);
    m_progress->setFormat(tr("pass %v/%m"));
    m_status = new QLabel;
    m_status->setObjectName("pruningStatus");
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_importance = new HeatmapView;
    m_importance->setObjectName("headImportance");
    m_importance->setControlsVisible(false); // a table of heads, not attention: no first-token or mask options
    m_importance->setMinimumSize(260, 200);
    m_curve = new LinePlot;
    m_curve->setObjectName("pruningCurve");
    m_curve->setMinimumSize(260, 200);
    m_curve->setLegendBelow(2);
    m_curve->setYRange(0.0, 1.0, true); // accuracy reads against its whole range
    m_selected = new QLabel(tr("Click a head in the importance map to select it."));
    m_selected->setObjectName("pruningSelected");
    m_ablate = new QPushButton(tr("Ablate on the Intervene tab"));
    m_ablate->setObjectName("pruningAblate");
    m_ablate->setToolTip(tr("Zero the selected head on the Intervene tab (the main input): what removing it changes "
                            "there, token by token"));
    m_ablate->setEnabled(false);

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_pruneInput);
    controls->addWidget(m_pruneCorpus);
    controls->addStretch(1);
    controls->addWidget(m_progress);
    controls->addWidget(m_cancel);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(m_importance);
    split->addWidget(m_curve);
    split->setChildrenCollapsible(false);
    split->setObjectName("exportFigure"); // what File > Export figure draws for this tab: both figures
    auto* selection = new QHBoxLayout;
    selection->addWidget(m_selected, 1);
    selection->addWidget(m_ablate);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(controls);
    layout->addWidget(m_status);
    layout->addWidget(split, 1);
    layout->addLayout(selection);

    connect(m_pruneInput, &QPushButton::clicked, this, &PruningPanel::pruneInput);
    connect(m_pruneCorpus, &QPushButton::clicked, this, &PruningPanel::chooseCorpus);
    connect(m_ablate, &QPushButton::clicked, this, [this] {
        if (m_layer >= 0) emit ablateRequested(m_layer, m_head);
    });
    // A click (not a drag, which pans the map) on a head selects it.
    auto pressedAt = std::make_shared<QPoint>();
    connect(m_importance->plot(), &QCustomPlot::mousePress, this,
        [pressedAt](QMouseEvent* event) { *pressedAt = event->position().toPoint(); });
    connect(m_importance->plot(), &QCustomPlot::mouseRelease, this, [this, pressedAt](QMouseEvent* event) {
        const QPoint at = event->position().toPoint();
        int64_t layer = 0, head = 0;
        if (event->button() == Qt::LeftButton && (at - *pressedAt).manhattanLength() <= kClickSlopPx
            && headAt(at, &layer, &head))
            selectHead(layer, head);
    });
    connect(m_runner, &InterventionRunner::failed, this, [this](const QString& message) {
        m_status->setText(tr("Error: %1").arg(message));
        emit resultShown();
    });
    connect(m_runner, &InterventionRunner::cancelled, this, [this] { m_status->setText(tr("Cancelled.")); });
    connect(m_runner, &InterventionRunner::busyChanged, this, [this](bool busy) {
        m_pruneInput->setEnabled(!busy && m_summary && (classifier() ? !m_image.isEmpty() : !m_tokens.empty()));
        m_pruneCorpus->setEnabled(!busy && m_summary);
    });
    setModel(nullptr);
}

void PruningPanel::setModel(std::shared_ptr<const ModelSummary> summary)
{
    const bool prunable
        = summary && (summary->config.kind == ModelKind::Decoder || summary->config.kind == ModelKind::Vision);
    m_summary = prunable ? std::move(summary) : nullptr;
    m_tokens.clear();
    m_image.clear();
    m_runner->forget();
    m_result.reset();
    m_layer = m_head = -1;
    m_importance->setSnapshot(nullptr);
    m_importance->setPlaceholder(tr("No importance yet"));
    m_curve->setSeries({});
    m_ablate->setEnabled(false);
    m_pruneInput->setEnabled(false);
    m_pruneCorpus->setEnabled(m_summary != nullptr);
    m_pruneInput->setText(classifier() ? tr("Prune the image") : tr("Prune the input"));
    m_pruneInput->setToolTip(classifier()
            ? tr("Every head's importance and the greedy pruning curve on the Vision tab's image, whose file name "
                 "names its true class")
            : tr("Every head's importance and the greedy pruning curve on the main input"));
    m_ablate->setVisible(!classifier()); // the Intervene tab runs text models only
    m_pruneCorpus->setText(classifier() ? tr("Prune labelled images…") : tr("Prune a text file…"));
    m_pruneCorpus->setToolTip(classifier()
            ? tr("The same over image files whose names name their true class, as the bundled samples' do "
                 "(sample_0_circle.png): importance is the drop in the log-probability of that class, and the curve "
                 "shows classification accuracy")
            : tr("The same over every non-empty line of a text file (as attnscope-cli prune --corpus reads it: each "
                 "line with BOS, cut to the model's context)"));
    m_importance->setToolTip(classifier()
            ? tr("Mean log-probability of each image's true class unmodified minus with this head removed (head mask "
                 "0), nats. Click a head to select it")
            : tr("Mean log-probability of the actual next tokens unmodified minus with this head removed (head mask "
                 "0), nats. Click a head to select it"));
    m_curve->setToolTip(classifier()
            ? tr("Heads removed one at a time, least important first: the mean loss of the true classes and the "
                 "share of images classified as their true class")
            : tr("Heads removed one at a time, least important first: the mean next-token loss, the share of "
                 "positions whose most likely token is the actual next one, and that share over the positions that "
                 "repeat an earlier span (copy accuracy: the two tokens before occurred earlier, followed by the same "
                 "token)"));
    if (!m_summary)
        m_status->setText(tr("Pruning needs a decoder (a model that predicts the next token) or an image classifier."));
    else if (classifier())
        m_status->setText(tr("Open an image whose file name names its class, then prune it here, or prune a set of "
                             "labelled images."));
    else
        m_status->setText(tr("Run an input, then prune it here, or prune a text file of inputs."));
}

void PruningPanel::setImageModel(const QString& path)
{
    auto summary = std::make_shared<ModelSummary>();
    summary->path = path.toStdString();
    try {
        summary->config = probeModel(summary->path).config; // config.json only: the Vision tab loaded the weights
    } catch (const Error&) {
        return setModel(nullptr);
    }
    setModel(std::move(summary));
}

void PruningPanel::setImage(const QString& path)
{
    if (!classifier()) return;
    m_image = path;
    m_pruneInput->setEnabled(!m_runner->busy() && !m_image.isEmpty());
    if (!m_result && !m_runner->busy())
        m_status->setText(tr("Prune the image %1 (its file name names its class), or a set of labelled images.")
                              .arg(QFileInfo(path).fileName()));
}

bool PruningPanel::classifier() const
{
    return m_summary && m_summary->config.kind == ModelKind::Vision;
}

void PruningPanel::setRun(std::shared_ptr<const RunResult> run)
{
    if (!m_summary || classifier()) return;
    m_tokens.clear();
    for (const TokenChip& chip : run->source)
        m_tokens.push_back(chip.id);
    m_pruneInput->setEnabled(!m_runner->busy() && !m_tokens.empty());
}

void PruningPanel::pruneInput()
{
    if (classifier() && !m_image.isEmpty()) return pruneImages({ m_image });
    if (!m_summary || classifier() || m_tokens.empty()) return;
    start({ m_tokens, {}, {} });
}

void PruningPanel::pruneCorpus(const QString& path)
{
    if (!m_summary || classifier()) return;
    start({ {}, path.toStdString(), {} });
}

void PruningPanel::pruneImages(const QStringList& paths)
{
    if (!classifier() || paths.isEmpty()) return;
    PruningInputs inputs;
    for (const QString& path : paths)
        inputs.images.push_back(path.toStdString());
    start(std::move(inputs));
}

void PruningPanel::start(PruningInputs inputs)
{
    const int64_t heads = m_summary->config.numLayers * m_summary->config.numHeads;
    m_status->setText(tr("Removing each of %1 heads, then pruning them one by one…").arg(heads));
    m_runner->post<PruningResultPtr>([path = m_summary->path, inputs = std::move(inputs)](EngineContext& context,
                                         const RerunHooks& hooks) { return pruneHeads(context, path, inputs, hooks); },
        [this](PruningResultPtr result) { showResult(std::move(result)); });
}

void PruningPanel::showResult(PruningResultPtr result)
{
    m_result = std::move(result);
    const Tensor& importance = m_result->importance;
    const int64_t layers = importance.dim(0), heads = importance.dim(1);
    Mat values(layers, heads);
    for (int64_t l = 0; l < layers; ++l)
        for (int64_t h = 0; h < heads; ++h)
            values(l, h) = importance.data()[l * heads + h];
    m_importance->setSnapshot(matrixSnapshot(values, indexChips("L", layers), indexChips("H", heads)));
    m_importance->setCaption({ .title = tr("Head importance (nats)"),
        .x = tr("head"),
        .y = tr("layer"),
        .value = tr("log-prob drop") });
    const PruningCurve& c = m_result->curve;
    std::vector<double> percent;
    for (const double share : c.removedShare)
        percent.push_back(100.0 * share);
    const bool classes = m_result->classes;
    m_curve->setAxes(tr("Greedy pruning, least important head first"), tr("heads removed (%)"),
        classes ? tr("loss of the true class (nats)") : tr("next-token loss (nats)"), tr("accuracy"));
    std::vector<PlotSeries> series { { tr("loss"), percent, c.loss, QColor(200, 60, 40) },
        { classes ? tr("classification accuracy (right axis)") : tr("accuracy (right axis)"), percent, c.accuracy,
            QColor(40, 90, 200), true, true } };
    // The induction-copy task, where the input repeats itself (copyPositions): what removing heads does to copying.
    if (!c.copyAccuracy.empty())
        series.push_back({ tr("copy accuracy, %1 positions (right axis)").arg(c.copyPositions), percent, c.copyAccuracy,
            QColor(40, 150, 70), false, true });
    m_curve->setSeries(series);
    const HeadRef least = c.order.front(), most = c.order.back();
    m_status->setText(tr("Over %1: unmodified loss %2 nats, %9 %3 %. Least important %4 (%5 nats), most "
                         "important %6 (%7 nats); all heads removed: loss %8, %9 %10 %.")
                          .arg(QString::fromStdString(m_result->basis))
                          .arg(m_result->unmodifiedLoss, 0, 'f', 3)
                          .arg(100.0 * c.accuracy.front(), 0, 'f', 1)
                          .arg(headName(least.layer, least.head))
                          .arg(importance.data()[least.layer * heads + least.head], 0, 'g', 3)
                          .arg(headName(most.layer, most.head))
                          .arg(importance.data()[most.layer * heads + most.head], 0, 'g', 3)
                          .arg(c.loss.back(), 0, 'f', 3)
                          .arg(classes ? tr("classification accuracy") : tr("accuracy"))
                          .arg(100.0 * c.accuracy.back(), 0, 'f', 1)
        + (c.copyAccuracy.empty() ? QString()
                                  : tr(" Copy accuracy over %1 repeated positions: %2 %.")
                                        .arg(c.copyPositions)
                                        .arg(100.0 * c.copyAccuracy.front(), 0, 'f', 1)));
    if (m_layer >= layers || m_head >= heads) m_layer = m_head = -1;
    m_ablate->setEnabled(m_layer >= 0 && !classifier());
    emit resultShown();
}

void PruningPanel::selectHead(int64_t layer, int64_t head)
{
    if (!m_result) return;
    m_layer = layer;
    m_head = head;
    const float value = m_result->importance.data()[layer * m_result->importance.dim(1) + head];
    m_selected->setText(tr("Selected %1: importance %2 nats.").arg(headName(layer, head)).arg(value, 0, 'g', 4));
    m_ablate->setEnabled(!classifier());
    emit headSelected(layer, head);
}

bool PruningPanel::headAt(const QPoint& at, int64_t* layer, int64_t* head) const
{
    if (!m_result) return false;
    const int64_t layers = m_result->importance.dim(0), heads = m_result->importance.dim(1);
    // The cell whose centre is nearest, if the point lies within half a cell of it.
    const QPoint origin = m_importance->plot()->mapTo(m_importance, at);
    const QPoint first = m_importance->cellCenter(0, 0);
    const QPoint last = m_importance->cellCenter(layers - 1, heads - 1);
    const double cellW = heads > 1 ? std::abs(last.x() - first.x()) / double(heads - 1) : m_importance->width();
    const double cellH = layers > 1 ? std::abs(last.y() - first.y()) / double(layers - 1) : m_importance->height();
    double best = 1e300;
    for (int64_t l = 0; l < layers; ++l)
        for (int64_t h = 0; h < heads; ++h) {
            const QPoint c = m_importance->cellCenter(l, h);
            const double dx = std::abs(c.x() - origin.x()), dy = std::abs(c.y() - origin.y());
            if (dx <= cellW / 2 + 1 && dy <= cellH / 2 + 1 && dx + dy < best) {
                best = dx + dy;
                *layer = l;
                *head = h;
            }
        }
    return best < 1e300;
}

void PruningPanel::chooseCorpus()
{
    if (classifier()) {
        const QStringList paths
            = QFileDialog::getOpenFileNames(this, tr("Prune over labelled images (each file's name names its class)"),
                {}, tr("Images (*.png *.jpg *.jpeg *.bmp);;All files (*)"));
        return pruneImages(paths);
    }
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Prune over a text file (one input per line)"), {}, tr("Text (*.txt);;All files (*)"));
    if (!path.isEmpty()) pruneCorpus(path);
}

QString PruningPanel::status() const
{
    return m_status->text();
}

} // namespace attn::ui
