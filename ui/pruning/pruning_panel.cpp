// SPDX-License-Identifier: MIT
#include "pruning/pruning_panel.h"

#include "controller/attention_provider.h"
#include "intervention/intervention_runner.h"
#include "mechanisms/line_plot.h"
#include "mechanisms/matrix_snapshot.h"
#include "model/family_registry.h"
#include "model/model_source.h"
#include "model/seq2seq_model.h"
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
#include <QStackedWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace attn::ui {

namespace {

constexpr const char* kSessionKey = "pruning"; // nothing is kept under it: each request loads nothing but the model
constexpr int kClickSlopPx = 4; // a press and release further apart is a pan of the map, not a click
// The importance map's least width: its bold title over the cells, its row labels ("cross L1") and axis name, the
// colour bar, and a flat label for each of a few heads. With the 260 px of the curve it had at 1024 px its title read
// "ead importance (nat" and every other head was labelled.
constexpr int kMapMinWidth = 380;

/// A transformer encoder-decoder (not an RNN, whose one attention has no heads to remove).
bool transformerTranslator(const ModelConfig& c)
{
    return (c.capabilities & kTranslate) != 0 && hasSelfAttention(c);
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
    m_importance->setMinimumSize(kMapMinWidth, 200);
    m_curve = new LinePlot;
    m_curve->setObjectName("pruningCurve");
    m_curve->setMinimumSize(260, 200);
    m_curve->setLegendBelow(2);
    m_curve->setYRange(0.0, 1.0, true); // accuracy reads against its whole range
    // Before a result the plot would show bare default axes: say what will be drawn there instead.
    m_curvePlaceholder = new QLabel;
    m_curvePlaceholder->setObjectName("pruningCurvePlaceholder");
    m_curvePlaceholder->setWordWrap(true);
    m_curvePlaceholder->setAlignment(Qt::AlignCenter);
    m_curvePlaceholder->setContentsMargins(12, 12, 12, 12);
    m_curvePlaceholder->setMinimumSize(260, 200);
    m_curveShown = new QStackedWidget;
    m_curveShown->addWidget(m_curvePlaceholder);
    m_curveShown->addWidget(m_curve);
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
    split->addWidget(m_curveShown);
    split->setChildrenCollapsible(false);
    split->setStretchFactor(0, 1); // the room beyond both minimums goes to both figures alike
    split->setStretchFactor(1, 1);
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
        m_pruneInput->setEnabled(
            !busy && m_summary && !translator() && (classifier() ? !m_image.isEmpty() : !m_tokens.empty()));
        m_pruneCorpus->setEnabled(!busy && m_summary);
    });
    setModel(nullptr);
}

void PruningPanel::setModel(std::shared_ptr<const ModelSummary> summary)
{
    const bool rnnTranslator
        = summary && (summary->config.capabilities & kTranslate) != 0 && !transformerTranslator(summary->config);
    const bool prunable = summary
        && (summary->config.kind == ModelKind::Decoder || summary->config.kind == ModelKind::Vision
            || transformerTranslator(summary->config));
    m_summary = prunable ? std::move(summary) : nullptr;
    m_tokens.clear();
    m_image.clear();
    m_runner->forget();
    m_result.reset();
    m_layer = m_head = -1;
    m_importance->setSnapshot(nullptr);
    m_importance->setPlaceholder(tr("No importance yet"));
    m_curve->setSeries({});
    m_curvePlaceholder->setText(translator()
            ? tr("No pruning curve yet. Prune sentence pairs to see the loss of the reference translations and the "
                 "share of exact greedy translations as heads are removed, least important first.")
            : tr("No pruning curve yet. Prune to see the loss and accuracy as heads are removed, least important "
                 "first."));
    m_curveShown->setCurrentWidget(m_curvePlaceholder);
    m_ablate->setEnabled(false);
    m_pruneInput->setEnabled(false);
    m_pruneCorpus->setEnabled(m_summary != nullptr);
    m_pruneInput->setText(classifier() ? tr("Prune the image") : tr("Prune the input"));
    m_pruneInput->setToolTip(classifier()
            ? tr("Every head's importance and the greedy pruning curve on the Vision tab's image, whose file name "
                 "names its true class")
            : tr("Every head's importance and the greedy pruning curve on the main input"));
    // The Intervene tab runs decoders only; a translator's reference translations come from its file of pairs.
    m_ablate->setVisible(!classifier() && !translator());
    m_pruneInput->setVisible(!translator());
    m_pruneCorpus->setText(classifier() ? tr("Prune labelled images…")
            : translator()              ? tr("Prune sentence pairs…")
                                        : tr("Prune a text file…"));
    m_pruneCorpus->setToolTip(classifier()
            ? tr("The same over image files whose names name their true class, as the bundled samples' do "
                 "(sample_0_circle.png): importance is the drop in the log-probability of that class, and the curve "
                 "shows classification accuracy")
            : translator()
            ? tr("Every encoder, decoder and cross-attention head's importance and the greedy pruning curve over a "
                 "file of sentence pairs, one a line: the source, a tab, its reference translation (as "
                 "attnscope-cli prune --corpus reads it)")
            : tr("The same over every non-empty line of a text file (as attnscope-cli prune --corpus reads it: each "
                 "line with BOS, cut to the model's context)"));
    m_importance->setToolTip(classifier()
            ? tr("Mean log-probability of each image's true class unmodified minus with this head removed (head mask "
                 "0), nats. Click a head to select it")
            : translator()
            ? tr("Mean teacher-forced log-probability of the reference translations' tokens unmodified minus with "
                 "this head removed (head mask 0), nats; rows are the encoder's self-attention layers, then the "
                 "decoder's self-attention and its cross-attention layers. Click a head to select it")
            : tr("Mean log-probability of the actual next tokens unmodified minus with this head removed (head mask "
                 "0), nats. Click a head to select it"));
    m_curve->setToolTip(classifier()
            ? tr("Heads removed one at a time, least important first: the mean loss of the true classes and the "
                 "share of images classified as their true class")
            : translator()
            ? tr("Heads removed one at a time, least important first: the mean teacher-forced loss of the reference "
                 "translations and the share of sentences whose greedy translation is the reference exactly")
            : tr("Heads removed one at a time, least important first: the mean next-token loss, the share of "
                 "positions whose most likely token is the actual next one, and that share over the positions that "
                 "repeat an earlier span (copy accuracy: the two tokens before occurred earlier, followed by the same "
                 "token)"));
    if (rnnTranslator)
        m_status->setText(tr("This RNN translator's one attention has no heads to remove: pruning needs a decoder, an "
                             "image classifier or a transformer translator."));
    else if (!m_summary)
        m_status->setText(tr("Pruning needs a decoder (a model that predicts the next token), an image classifier or "
                             "a transformer translator."));
    else if (translator())
        m_status->setText(tr("Prune a file of sentence pairs, one a line: the source, a tab, its reference "
                             "translation (for the demo: paste heldout.en heldout.fr from its folder)."));
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

bool PruningPanel::translator() const
{
    return m_summary && transformerTranslator(m_summary->config);
}

QString PruningPanel::headName(int64_t layer, int64_t head) const
{
    if (translator())
        return QStringLiteral("%1.H%2")
            .arg(QString::fromStdString(seq2seqHeadRows(m_summary->config).rowName(layer)))
            .arg(head);
    return QStringLiteral("L%1.H%2").arg(layer).arg(head);
}

void PruningPanel::setRun(std::shared_ptr<const RunResult> run)
{
    if (!m_summary || classifier() || translator()) return;
    m_tokens.clear();
    for (const TokenChip& chip : run->source)
        m_tokens.push_back(chip.id);
    m_pruneInput->setEnabled(!m_runner->busy() && !m_tokens.empty());
}

void PruningPanel::pruneInput()
{
    if (classifier() && !m_image.isEmpty()) return pruneImages({ m_image });
    if (!m_summary || classifier() || translator() || m_tokens.empty()) return;
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
    const ModelConfig& c = m_summary->config;
    const Seq2SeqHeadRows rows = seq2seqHeadRows(c);
    const int64_t heads = translator() ? rows.rows() * rows.heads : c.numLayers * c.numHeads;
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
    const PruningTarget target = m_result->target;
    std::vector<TokenChip> rowChips = indexChips("L", layers);
    if (target == PruningTarget::Translations)
        for (int64_t l = 0; l < layers; ++l)
            rowChips[static_cast<size_t>(l)].text = m_result->rows.rowName(l);
    m_importance->setSnapshot(matrixSnapshot(values, rowChips, indexChips("H", heads)));
    m_importance->setCaption({ .title = tr("Head importance (nats)"),
        .x = tr("head"),
        .y = target == PruningTarget::Translations ? tr("attention layer") : tr("layer"),
        .value = tr("log-prob drop") });
    const PruningCurve& c = m_result->curve;
    std::vector<double> percent;
    for (const double share : c.removedShare)
        percent.push_back(100.0 * share);
    const QString accuracyName = target == PruningTarget::Classes ? tr("classification accuracy")
        : target == PruningTarget::Translations                   ? tr("exact match")
                                                                  : tr("accuracy");
    m_curve->setAxes(tr("Greedy pruning, least important head first"), tr("heads removed (%)"),
        target == PruningTarget::Classes            ? tr("loss of the true class (nats)")
            : target == PruningTarget::Translations ? tr("reference loss (nats)")
                                                    : tr("next-token loss (nats)"),
        tr("accuracy"));
    std::vector<PlotSeries> series { { tr("loss"), percent, c.loss, QColor(200, 60, 40) },
        { tr("%1 (right axis)").arg(accuracyName), percent, c.accuracy, QColor(40, 90, 200), true, true } };
    // The induction-copy task, where the input repeats itself (copyPositions): what removing heads does to copying.
    if (!c.copyAccuracy.empty())
        series.push_back({ tr("copy accuracy, %1 positions (right axis)").arg(c.copyPositions), percent, c.copyAccuracy,
            QColor(40, 150, 70), false, true });
    m_curve->setSeries(series);
    m_curveShown->setCurrentWidget(m_curve);
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
                          .arg(accuracyName)
                          .arg(100.0 * c.accuracy.back(), 0, 'f', 1)
        + (c.copyAccuracy.empty() ? QString()
                                  : tr(" Copy accuracy over %1 repeated positions: %2 %.")
                                        .arg(c.copyPositions)
                                        .arg(100.0 * c.copyAccuracy.front(), 0, 'f', 1)));
    if (m_layer >= layers || m_head >= heads) m_layer = m_head = -1;
    m_ablate->setEnabled(m_layer >= 0 && !classifier() && !translator());
    emit resultShown();
}

void PruningPanel::selectHead(int64_t layer, int64_t head)
{
    if (!m_result) return;
    m_layer = layer;
    m_head = head;
    const float value = m_result->importance.data()[layer * m_result->importance.dim(1) + head];
    m_selected->setText(tr("Selected %1: importance %2 nats.").arg(headName(layer, head)).arg(value, 0, 'g', 4));
    m_ablate->setEnabled(!classifier() && !translator());
    // A translator's rows stack three kinds of attention: they are not the main views' layers.
    if (!translator()) emit headSelected(layer, head);
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
    const QString path = translator()
        ? QFileDialog::getOpenFileName(this,
            tr("Prune over sentence pairs (one a line: source, tab, reference translation)"), {},
            tr("Sentence pairs (*.tsv *.txt);;All files (*)"))
        : QFileDialog::getOpenFileName(
            this, tr("Prune over a text file (one input per line)"), {}, tr("Text (*.txt);;All files (*)"));
    if (!path.isEmpty()) pruneCorpus(path);
}

QString PruningPanel::status() const
{
    return m_status->text();
}

} // namespace attn::ui
