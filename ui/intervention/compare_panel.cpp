// SPDX-License-Identifier: MIT
#include "intervention/compare_panel.h"

#include "controller/engine_controller.h"
#include "core/error.h"
#include "intervention/comparison.h"
#include "mechanisms/line_plot.h"
#include "model/model_source.h"
#include "plots/heatmap_view.h"
#include "session/session.h"
#include "tokenizer/tokenizer_loader.h"
#include "widgets/token_link.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>
#include <numbers>
#include <numeric>

namespace attn::ui {

namespace {

/// On the engine thread: the attention of the decoder at `path` (`source`, the registry's copy) over `chips`.
SnapshotPtr runTokens(
    EngineContext& context, const std::string& path, const ModelSource& source, std::vector<TokenChip> chips)
{
    std::vector<int64_t> ids;
    for (const TokenChip& chip : chips) {
        if (chip.id < 0 || chip.id >= source.config.vocabSize)
            throw Error(path,
                "token id " + std::to_string(chip.id) + " is outside this model's vocabulary of "
                    + std::to_string(source.config.vocabSize) + ": two models compare on one vocabulary");
        ids.push_back(chip.id);
    }
    Session session(context.models().model(source), context.forwardOptions());
    const auto result = session.prefill(ids);
    MaskSpec mask;
    mask.causal = true;
    mask.slidingWindow = source.config.slidingWindow;
    return std::make_shared<const AttentionSnapshot>(std::move(chips), result->attention, source.config.numKvHeads,
        mask, std::vector<TokenChip> {}, AttentionSnapshot::Stats::Skip);
}

ModelSource decoderSource(const std::string& path, const std::string& what)
{
    ModelSource source = probeModel(path);
    if (source.config.kind != ModelKind::Decoder)
        throw Error(path, what + " needs a decoder, not " + modelKindName(source.config.kind));
    return source;
}

/// On the engine thread: the attention of `text` on the decoder at `path`.
SnapshotPtr runPrompt(EngineContext& context, const std::string& path, const std::string& text)
{
    const ModelSource source = decoderSource(path, "comparing two prompts");
    const std::shared_ptr<const Tokenizer> tokenizer = loadTokenizer(source);
    const std::vector<Token> tokens = tokenizer->encode(text);
    if (tokens.empty()) throw Error("the second prompt has no tokens: type some text");
    std::vector<TokenChip> chips;
    for (const Token& t : tokens)
        chips.push_back({ tokenizer->tokenText(t.id), t.id, t.special });
    return runTokens(context, path, source, std::move(chips));
}

} // namespace

ComparePanel::ComparePanel(EngineController* engine, QWidget* parent)
    : QWidget(parent)
    , m_engine(engine)
{
    qRegisterMetaType<attn::ui::SnapshotPtr>("attn::ui::SnapshotPtr");
    setObjectName("comparePanel");
    m_mode = new QComboBox;
    m_mode->setObjectName("compareMode");
    m_mode->addItem(tr("two heads"), static_cast<int>(Mode::Heads));
    m_mode->addItem(tr("two layers (mean of heads)"), static_cast<int>(Mode::Layers));
    m_mode->addItem(tr("two prompts"), static_cast<int>(Mode::Prompts));
    m_mode->addItem(tr("two models"), static_cast<int>(Mode::Models));
    m_mode->setToolTip(
        tr("What A and B are: two heads of the main input, two layers' head means, or the same "
           "selection on the main input (A) and on a second prompt (B), or the main input on a second model (B)"));
    m_third = new QComboBox;
    m_third->setObjectName("compareThird");
    m_third->addItem(tr("B − A"), static_cast<int>(Third::Difference));
    m_third->addItem(tr("log₂(B / A)"), static_cast<int>(Third::Ratio));
    m_third->setToolTip(tr("The third map: the difference of the weights, or their ratio as log₂((B + 0.001) / (A + "
                           "0.001)): +1 where B puts twice A's weight, −1 half; the 0.001 keeps keys neither attends "
                           "to near 0"));
    auto* controls = new QHBoxLayout;
    controls->addWidget(m_mode);
    controls->addWidget(m_third);
    for (int side = 0; side < 2; ++side) {
        const QString name = side == 0 ? tr("A") : tr("B");
        m_layer[side] = new QSpinBox;
        m_layer[side]->setPrefix(tr("%1: layer ").arg(name));
        m_layer[side]->setToolTip(tr("The layer of side %1").arg(name));
        m_head[side] = new QSpinBox;
        m_head[side]->setPrefix(tr("head "));
        m_head[side]->setToolTip(tr("The head of side %1 (not used for a layer's head mean)").arg(name));
        m_layer[side]->setObjectName(side == 0 ? "compareLayerA" : "compareLayerB");
        m_head[side]->setObjectName(side == 0 ? "compareHeadA" : "compareHeadB");
        controls->addWidget(m_layer[side]);
        controls->addWidget(m_head[side]);
        for (QSpinBox* box : { m_layer[side], m_head[side] })
            connect(box, &QSpinBox::valueChanged, this, [this] { refresh(); });
    }
    m_prompt = new QLineEdit;
    m_prompt->setObjectName("comparePrompt");
    m_prompt->setPlaceholderText(tr("Prompt B (Enter compares)"));
    m_prompt->setToolTip(tr("The second prompt: side B is its attention, side A the main input's"));
    m_modelB = new QLineEdit;
    m_modelB->setObjectName("compareModelB");
    m_modelB->setPlaceholderText(tr("Model B folder or file (Enter compares)"));
    m_modelB->setToolTip(tr("Side B runs the main input's token ids on this decoder (one vocabulary: a base and a "
                            "fine-tune, F32 and F16)"));
    m_browseB = new QPushButton(tr("…"));
    m_browseB->setObjectName("browseModelB");
    m_browseB->setToolTip(tr("Choose model B"));
    m_compare = new QPushButton(tr("Compare"));
    m_compare->setObjectName("compareButton");
    m_compare->setToolTip(tr("Run prompt B and compare"));
    controls->addWidget(m_prompt, 1);
    controls->addWidget(m_modelB, 1);
    controls->addWidget(m_browseB);
    controls->addWidget(m_compare);
    controls->addStretch(0); // the spin boxes keep their size when the prompt is hidden
    m_status = new QLabel;
    m_status->setObjectName("compareStatus");
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* maps = new QWidget;
    auto* mapsLayout = new QHBoxLayout(maps);
    mapsLayout->setContentsMargins(0, 0, 0, 0);
    for (int i = 0; i < 3; ++i) {
        m_views[i] = new HeatmapView;
        m_views[i]->setControlsVisible(false);
        m_views[i]->setMinimumSize(200, 180); // the plot's title would otherwise set the tab's width
        mapsLayout->addWidget(m_views[i], 1);
    }
    m_views[0]->setObjectName("compareA");
    m_views[1]->setObjectName("compareB");
    m_views[2]->setObjectName("compareDifference");
    m_views[2]->setColormap(Colormap::Diverging);
    HeatmapOptions signedRange;
    signedRange.symmetric = true; // equal patterns show the middle colour, not the bottom of a 0..1 scale
    m_views[2]->setOptions(signedRange);
    m_views[0]->setCaption({ .title = tr("A") });
    m_views[1]->setCaption({ .title = tr("B") });
    m_views[2]->setCaption({ .title = tr("B − A"), .value = tr("difference") });
    m_link = new TokenLink(this);
    for (HeatmapView* v : m_views)
        v->setLink(m_link);
    linkZoom();
    m_js = new LinePlot;
    m_js->setObjectName("compareJs");
    m_js->setIntegerX(tr("Jensen–Shannon divergence of each query row"), tr("query position"), tr("nats"));
    m_js->setLegendVisible(false);
    m_js->setYRange(0.0, std::numbers::ln2); // the divergence in nats lies in [0, ln 2]
    // 175 px keeps ~100 px between the axes, and four ticks on [0, ln 2]: seven labels ran together in 70 px.
    m_js->setMinimumSize(240, 175);
    m_js->plot()->yAxis->ticker()->setTickCount(4);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(maps);
    split->addWidget(m_js);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    split->setObjectName("exportFigure"); // what File > Export figure draws for this tab
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(controls);
    layout->addWidget(m_status);
    layout->addWidget(split, 1);

    connect(m_mode, &QComboBox::currentIndexChanged, this, [this] {
        m_promptRun.reset();
        updateControls();
        refresh();
    });
    connect(m_third, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
    connect(m_compare, &QPushButton::clicked, this, [this] {
        m_promptRun.reset();
        compare();
    });
    connect(m_prompt, &QLineEdit::returnPressed, m_compare, &QPushButton::click);
    connect(m_modelB, &QLineEdit::returnPressed, m_compare, &QPushButton::click);
    connect(m_browseB, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Model B"), QString(), tr("Models (*.safetensors *.gguf *.bin config.json);;All files (*)"));
        if (path.isEmpty()) return;
        setModelB(path);
        compare();
    });
    updateControls();
    setModel(nullptr);
}

void ComparePanel::setModel(std::shared_ptr<const ModelSummary> summary)
{
    m_summary = std::move(summary);
    m_snapshot.reset();
    m_promptRun.reset();
    ++m_request;
    m_jsRows.clear();
    for (HeatmapView* v : m_views)
        v->setSnapshot(nullptr);
    m_js->setSeries({});
    m_status->setText(tr("Run an input, then choose A and B."));
}

void ComparePanel::setSnapshot(SnapshotPtr snapshot)
{
    const bool firstOfModel = !m_snapshot;
    m_snapshot = std::move(snapshot);
    for (int side = 0; side < 2; ++side) {
        const QSignalBlocker blockLayer(m_layer[side]), blockHead(m_head[side]);
        m_layer[side]->setRange(0, static_cast<int>(m_snapshot->numLayers() - 1));
        m_head[side]->setRange(0, static_cast<int>(m_snapshot->numHeads() - 1));
    }
    // A new model opens on two different heads (or layers): A against itself would show an empty difference.
    if (firstOfModel && m_layer[0]->value() == m_layer[1]->value() && m_head[0]->value() == m_head[1]->value()) {
        const QSignalBlocker blockLayer(m_layer[1]), blockHead(m_head[1]);
        if (m_snapshot->numHeads() > 1)
            m_head[1]->setValue((m_head[0]->value() + 1) % static_cast<int>(m_snapshot->numHeads()));
        else
            m_layer[1]->setValue((m_layer[0]->value() + 1) % static_cast<int>(m_snapshot->numLayers()));
    }
    refresh();
}

void ComparePanel::setMode(Mode mode)
{
    m_mode->setCurrentIndex(m_mode->findData(static_cast<int>(mode)));
}

void ComparePanel::setThird(Third third)
{
    m_third->setCurrentIndex(m_third->findData(static_cast<int>(third)));
}

void ComparePanel::linkZoom()
{
    for (HeatmapView* from : m_views)
        for (QCPAxis* axis : { from->plot()->xAxis, from->plot()->yAxis })
            connect(axis, QOverload<const QCPRange&>::of(&QCPAxis::rangeChanged), this,
                [this, from, x = axis == from->plot()->xAxis](const QCPRange& range) {
                    if (m_syncing) return;
                    m_syncing = true;
                    for (HeatmapView* to : m_views)
                        if (to != from) {
                            (x ? to->plot()->xAxis : to->plot()->yAxis)->setRange(range);
                            to->plot()->replot(QCustomPlot::rpQueuedReplot);
                        }
                    m_syncing = false;
                });
}

void ComparePanel::setSide(bool b, int64_t layer, int64_t head)
{
    const int side = b ? 1 : 0;
    {
        const QSignalBlocker blockLayer(m_layer[side]), blockHead(m_head[side]);
        m_layer[side]->setValue(static_cast<int>(layer));
        m_head[side]->setValue(static_cast<int>(head));
    }
    refresh();
}

void ComparePanel::setModelB(const QString& path)
{
    m_modelB->setText(path);
    m_promptRun.reset();
}

void ComparePanel::setPromptB(const QString& text)
{
    m_prompt->setText(text);
    m_promptRun.reset();
}

void ComparePanel::refresh()
{
    // Prompts and Models run B only when asked (Compare); a selection change re-reads a run already there.
    const auto mode = static_cast<Mode>(m_mode->currentData().toInt());
    const bool ready = (mode != Mode::Prompts && mode != Mode::Models) || m_promptRun;
    m_stale = !isVisible();
    if (ready && !m_stale) compare();
}

void ComparePanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_stale) refresh();
}

QString ComparePanel::status() const
{
    return m_status->text();
}

void ComparePanel::updateControls()
{
    const auto mode = static_cast<Mode>(m_mode->currentData().toInt());
    for (int side = 0; side < 2; ++side)
        m_head[side]->setEnabled(mode != Mode::Layers);
    m_prompt->setVisible(mode == Mode::Prompts);
    m_modelB->setVisible(mode == Mode::Models);
    m_browseB->setVisible(mode == Mode::Models);
    m_compare->setVisible(mode == Mode::Prompts || mode == Mode::Models);
}

void ComparePanel::compare()
{
    if (!m_snapshot) return;
    const auto mode = static_cast<Mode>(m_mode->currentData().toInt());
    if (mode != Mode::Prompts && mode != Mode::Models) return comparePair(m_snapshot, m_snapshot);
    if (m_promptRun) return comparePair(m_snapshot, m_promptRun);
    const QLineEdit* input = mode == Mode::Prompts ? m_prompt : m_modelB;
    if (!m_summary || input->text().isEmpty()) {
        m_status->setText(
            mode == Mode::Prompts ? tr("Type prompt B, then Compare.") : tr("Choose model B, then Compare."));
        return emit compared();
    }
    const quint64 request = ++m_request;
    m_comparing = true;
    m_status->setText(mode == Mode::Prompts ? tr("Running prompt B…") : tr("Running the input on model B…"));
    std::function<SnapshotPtr(EngineContext&)> job;
    if (mode == Mode::Prompts)
        job = [path = m_summary->path, text = m_prompt->text().toStdString()](
                  EngineContext& context) { return runPrompt(context, path, text); };
    else
        job = [path = m_modelB->text().toStdString(), chips = m_snapshot->tokens()](EngineContext& context) {
            return runTokens(context, path, decoderSource(path, "comparing two models"), chips);
        };
    m_engine->post<SnapshotPtr>(
        this, std::move(job),
        [this, request](SnapshotPtr run) {
            if (request != m_request) return;
            m_promptRun = std::move(run);
            compare();
        },
        [this, request](const QString& message) {
            if (request != m_request) return;
            m_comparing = false;
            m_status->setText(tr("Error: %1").arg(message));
            emit compared();
        });
}

void ComparePanel::comparePair(SnapshotPtr runA, SnapshotPtr runB)
{
    CompareSelection selection;
    selection.headMeans = static_cast<Mode>(m_mode->currentData().toInt()) == Mode::Layers;
    for (int side = 0; side < 2; ++side) {
        selection.layer[side] = m_layer[side]->value();
        selection.head[side] = m_head[side]->value();
    }
    selection.ratio = static_cast<Third>(m_third->currentData().toInt()) == Third::Ratio;
    const quint64 request = ++m_request;
    m_comparing = true;
    m_status->setText(tr("Comparing…"));
    m_engine->post<ComparisonPtr>(
        this,
        [runA = std::move(runA), runB = std::move(runB), selection](
            EngineContext&) { return computeComparison(*runA, *runB, selection); },
        [this, request](ComparisonPtr comparison) {
            if (request != m_request) return;
            m_comparing = false;
            show(*comparison);
        },
        [this, request](const QString& message) {
            if (request != m_request) return;
            m_comparing = false;
            m_status->setText(tr("Error: %1").arg(message));
            emit compared();
        });
}

void ComparePanel::show(const Comparison& c)
{
    if (!c.comparable()) {
        m_status->setText(tr("A is %1 x %2 and B %3 x %4: bidirectional attention of different lengths cannot be "
                             "compared row by row.")
                              .arg(c.sizeA[0])
                              .arg(c.sizeA[1])
                              .arg(c.sizeB[0])
                              .arg(c.sizeB[1]));
        return emit compared();
    }
    const bool ratio = static_cast<Third>(m_third->currentData().toInt()) == Third::Ratio;
    m_syncing = true; // each map resets its own zoom to the new matrix: nothing to pass on
    m_views[0]->setSnapshot(c.a);
    m_views[1]->setSnapshot(c.b);
    m_views[2]->setSnapshot(c.third);
    m_syncing = false;
    const auto mode = static_cast<Mode>(m_mode->currentData().toInt());
    const auto name = [&](int side) {
        return mode == Mode::Layers ? tr("L%1 mean").arg(m_layer[side]->value())
                                    : tr("L%1.H%2").arg(m_layer[side]->value()).arg(m_head[side]->value());
    };
    m_views[0]->setCaption({ .title = tr("A: %1").arg(name(0)) });
    m_views[1]->setCaption({ .title = tr("B: %1%2").arg(name(1),
                                 mode == Mode::Prompts      ? tr(", prompt B")
                                     : mode == Mode::Models ? tr(", model B")
                                                            : QString()) });
    m_views[2]->setCaption(ratio ? HeatmapCaption { .title = tr("log₂(B / A)"), .value = tr("log₂ ratio") }
                                 : HeatmapCaption { .title = tr("B − A"), .value = tr("difference") });
    m_jsRows = c.js;
    PlotSeries series { tr("JS"), {}, m_jsRows, QColor(120, 60, 170) };
    for (int64_t i = 0; i < c.rows; ++i)
        series.x.push_back(static_cast<double>(i));
    m_js->setSeries({ series });
    const double mean = m_jsRows.empty()
        ? 0.0
        : std::accumulate(m_jsRows.begin(), m_jsRows.end(), 0.0) / static_cast<double>(m_jsRows.size());
    m_status->setText(tr("%1 query rows compared; mean JS divergence %2 nats (0: the same pattern, ln 2 = 0.693: "
                         "disjoint).")
                          .arg(c.rows)
                          .arg(mean, 0, 'g', 4));
    emit compared();
}

} // namespace attn::ui
