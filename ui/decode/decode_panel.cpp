// SPDX-License-Identifier: MIT
#include "decode/decode_panel.h"

#include "controller/engine_controller.h"
#include "decode/attention_strip_view.h"
#include "decode/branch_tree_view.h"
#include "decode/fixed_text_box.h"
#include "decode/kv_cache_view.h"
#include "decode/probability_chart.h"
#include "decode/timeline_view.h"
#include "intervention/decode_lens_view.h"
#include "model/token_text.h"
#include "plots/heatmap_view.h"
#include "widgets/redraw_coalescer.h"
#include "widgets/step_shortcuts.h"
#include "widgets/token_chips_view.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>

namespace attn::ui {
namespace {

/// The views' redraw interval during Run (otherwise RedrawCoalescer::kIntervalMs).
constexpr int kRunRedrawMs = 100;

/// What the model does to attention and logits beyond the plain softmax, for the Ready line (gemma2).
QString attentionNotes(const DecodeModelInfo& info)
{
    QString notes;
    if (!info.layerWindows.empty()) {
        const auto local
            = std::count_if(info.layerWindows.begin(), info.layerWindows.end(), [](int64_t w) { return w > 0; });
        notes += QObject::tr("; %1 local layers (window %2) and %3 global")
                     .arg(local)
                     .arg(info.slidingWindow)
                     .arg(static_cast<qsizetype>(info.layerWindows.size()) - local);
    }
    if (info.attnLogitSoftcap > 0) notes += QObject::tr("; scores soft-capped at %1").arg(info.attnLogitSoftcap);
    if (info.finalLogitSoftcap > 0) notes += QObject::tr("; logits soft-capped at %1").arg(info.finalLogitSoftcap);
    return notes;
}

} // namespace

namespace {
const char* const kNoModel
    = QT_TRANSLATE_NOOP("DecodePanel", "No attention yet: open a model that generates text (File > Open)");
} // namespace

DecodePanel::DecodePanel(EngineController* engine, QWidget* parent)
    : QWidget(parent)
    , m_controller(new DecodeController(engine, this))
{
    setObjectName("decodePanel");
    m_status = new QLabel;
    m_status->setObjectName("decodeStatus");
    m_chips = new TokenChipsView;
    m_chips->setMaxShown(kChipsShown);
    m_chart = new ProbabilityChart;
    m_strip = new AttentionStripView;
    m_heatmap = new HeatmapView;
    // A long prompt's overview is a pass over a whole head: on the engine thread, as the main heatmap's (computed
    // here it blocked the GUI for seconds after a 2,048-token prompt).
    m_heatmap->setDeriver(std::bind_front(&EngineController::derive, m_controller->engine()));
    m_link = new TokenLink(this); // hovering a chip or a cell highlights that position in both
    m_chips->setLink(m_link, TokenChipsView::Side::Source);
    m_heatmap->setLink(m_link);
    m_heatmap->setPlaceholder(tr(kNoModel));
    connect(m_link, &TokenLink::rangeChanged, m_strip, &AttentionStripView::setRange); // the heatmap's zoom too
    m_kv = new KvCacheView;
    m_timeline = new TimelineView;
    m_lensView = new DecodeLensView(m_controller->engine());
    m_redraw = new RedrawCoalescer(this, [this] { redraw(); });

    // The strip sits below with the per-step plots: beside the chart and the heatmap it made the tab wider than a
    // 1024 px window.
    auto* upper = new QSplitter(Qt::Horizontal);
    upper->addWidget(m_chart);
    upper->addWidget(m_heatmap);
    upper->setSizes({ 240, 800 });
    auto* lower = new QSplitter(Qt::Horizontal);
    lower->addWidget(m_kv);
    lower->addWidget(m_timeline);
    lower->addWidget(m_strip);
    lower->addWidget(m_lensView);
    lower->setSizes({ 280, 280, 200, 320 });
    // Minimum readable sizes: below them axis titles are clipped and legends cover the data. The lens table needs
    // 280 px for its three columns to read in full (its header said "top next toker" at 200, and its rows wrapped
    // into a vertical scroll at 1024 px); the strip's cells and the two plots give up the width for it.
    m_chart->setMinimumSize(220, 180);
    m_heatmap->setMinimumHeight(180);
    m_strip->setMinimumWidth(180);
    m_lensView->setMinimumWidth(280);
    m_kv->setMinimumSize(240, 195); // with its header rows: the plot keeps 140 px
    m_timeline->setMinimumSize(240, 180); // with its slider
    auto* vertical = new QSplitter(Qt::Vertical);
    vertical->addWidget(upper);
    vertical->addWidget(lower);
    // The heatmap's turned key labels and title take ~100 px of its plot: the upper row gets the larger share, or at
    // 1024x700 its cells were a 36 px strip.
    vertical->setStretchFactor(0, 2);
    vertical->setStretchFactor(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(buildControls());
    layout->addWidget(m_chips);
    layout->addWidget(vertical, 1);
    layout->addWidget(new FixedTextBox(m_status, 1)); // its text changes at every redraw during Run

    addStepShortcuts(this, tr("Decode"), m_stepButton, m_backButton, m_runButton);

    connect(m_controller, &DecodeController::opened, this, [this](DecodeInfoPtr info) {
        m_kv->setInfo(*info);
        m_heatmap->setPlaceholder(tr("No attention yet: type a prompt above and press Enter (or Step)"));
        m_topK->setMaximum(static_cast<int>(info->vocabSize));
        m_prompt->setPlaceholderText(info->hasTokenizer ? tr("Prompt text, Enter starts (empty = just the start token)")
                                                        : tr("Token ids separated by spaces, Enter starts (no tokenizer)"));
        m_status->setText(tr("Ready: %1 layers x %2 heads, context %3%4")
                              .arg(info->numLayers)
                              .arg(info->numHeads)
                              .arg(info->maxPositions)
                              .arg(attentionNotes(*info)));
        applySampling();
    });
    connect(m_controller, &DecodeController::timelineChanged, this, [this](qint64 keep) {
        // Rows past `keep` were replaced (Back, Force, a new prompt): a heatmap or a request over them is out of
        // date, so the next redraw asks again (-1: nothing valid), even for the same number of positions.
        if (m_heatmapPositions > keep) m_heatmapPositions = -1;
        if (m_requestedPositions > keep) m_requestedPositions = -1;
        const auto n = static_cast<int64_t>(m_controller->steps().size());
        if (m_follow || m_current >= n) m_current = n - 1;
        m_follow = m_current == n - 1;
        m_redraw->schedule();
    });
    connect(m_controller, &DecodeController::branchesChanged, this, &DecodePanel::updateBranches);
    connect(m_controller, &DecodeController::timelineChanged, this, &DecodePanel::updateBranches);
    connect(m_controller, &DecodeController::runningChanged, this, [this](bool running) {
        m_runButton->setText(running ? tr("&Pause") : tr("&Run"));
        // Ten redraws a second while running: each costs the GUI thread several ms, which a loaded machine takes
        // from the engine thread's decoding.
        m_redraw->setInterval(running ? kRunRedrawMs : RedrawCoalescer::kIntervalMs);
        if (!running) m_redraw->schedule(); // the lens waits for a pause
    });
    connect(m_controller, &DecodeController::ended, this,
        [this](const QString& reason) { m_status->setText(tr("Stopped: %1").arg(reason)); });
    connect(m_controller, &DecodeController::failed, this, &DecodePanel::showError);
    connect(m_controller, &DecodeController::stepRowsReady, this, [this](qint64 position, StepRowsPtr rows) {
        if (position == m_current) m_strip->setRows(*rows);
    });
    connect(m_controller, &DecodeController::snapshotReady, this, [this](qint64 positions, SnapshotPtr snapshot) {
        if (positions != m_current + 1) return; // scrubbed elsewhere meanwhile; a newer request follows
        m_heatmapPositions = positions;
        m_heatmap->setSnapshot(std::move(snapshot));
        emit positionsShown(positions);
    });
    connect(m_chart, &ProbabilityChart::candidateClicked, this, [this](qint64 position, qint64 token) {
        m_follow = true;
        m_controller->force(position, token);
    });
    connect(m_strip, &AttentionStripView::headActivated, this, [this](qint64 layer, qint64 head) {
        setHead(layer, head);
        emit headSelected(layer, head);
    });
    connect(m_timeline, &TimelineView::stepSelected, this, &DecodePanel::showStep);
}

DecodePanel::~DecodePanel() = default;

QWidget* DecodePanel::buildControls()
{
    m_prompt = new QLineEdit;
    m_prompt->setObjectName("decodePrompt");
    m_prompt->setToolTip(tr("The prompt to decode from; Enter starts it"));
    m_promptButton = new QPushButton(tr("Pro&mpt"));
    m_promptButton->setObjectName("promptButton");
    m_promptButton->setToolTip(tr("Start over from the prompt"));
    m_stepButton = new QPushButton(tr("&Step"));
    m_stepButton->setToolTip(tr("One more token (Right)"));
    m_runButton = new QPushButton(tr("&Run"));
    m_runButton->setToolTip(tr("Decode continuously; press again to pause (Space)"));
    m_backButton = new QPushButton(tr("&Back"));
    m_backButton->setToolTip(tr("Remove the last token (Left)"));
    m_resetButton = new QPushButton(tr("Rese&t"));
    m_resetButton->setToolTip(tr("Clear the timeline and its branches"));
    m_lensButton = new QPushButton(tr("Lens"));
    m_lensButton->setObjectName("decodeLensButton");
    m_lensButton->setToolTip(tr("Logit lens of the step shown: what each layer predicts after its tokens (opens the "
                                "Logit lens tab)"));
    connect(m_lensButton, &QPushButton::clicked, this, [this] {
        const std::vector<DecodeStepPtr>& steps = m_controller->steps();
        std::vector<TokenChip> tokens;
        for (int64_t i = 0; i <= m_current && i < static_cast<int64_t>(steps.size()); ++i)
            tokens.push_back(steps[static_cast<size_t>(i)]->token);
        if (!tokens.empty()) emit lensRequested(tokens);
    });
    for (QPushButton* b : { m_promptButton, m_stepButton, m_runButton, m_backButton, m_resetButton })
        b->setFocusPolicy(Qt::TabFocus); // clicks must not steal the arrow keys from the panel

    m_greedy = new QCheckBox(tr("&Greedy"));
    m_greedy->setChecked(true);
    m_greedy->setToolTip(tr("Always take the most likely token; off: sample with the settings beside"));
    m_temperature = new QDoubleSpinBox;
    m_temperature->setPrefix(tr("T "));
    m_temperature->setRange(0.01, 5.0);
    m_temperature->setSingleStep(0.1);
    m_temperature->setValue(1.0);
    m_topK = new QSpinBox;
    m_topK->setPrefix(tr("top-k "));
    m_topK->setSpecialValueText(tr("top-k off"));
    m_topK->setRange(0, INT_MAX);
    m_topP = new QDoubleSpinBox;
    m_topP->setPrefix(tr("top-p "));
    m_topP->setRange(0.0, 1.0);
    m_topP->setSingleStep(0.05);
    m_topP->setValue(0.9);
    m_seed = new QSpinBox;
    m_seed->setPrefix(tr("seed "));
    m_seed->setRange(1, INT_MAX);
    m_seed->setValue(42);
    m_temperature->setToolTip(tr("Sampling temperature: below 1 sharper, above 1 flatter"));
    m_topK->setToolTip(tr("Sample among the k most likely tokens only (0: off)"));
    m_topP->setToolTip(tr("Sample among the most likely tokens that make up this probability (nucleus)"));
    m_seed->setToolTip(tr("Random seed of the sampler: the same seed gives the same tokens"));
    for (QWidget* w : std::initializer_list<QWidget*> { m_temperature, m_topK, m_topP, m_seed })
        w->setEnabled(false);

    connect(m_prompt, &QLineEdit::returnPressed, m_promptButton, &QPushButton::click); // as in the main input
    connect(m_promptButton, &QPushButton::clicked, this, [this] {
        m_follow = true;
        const QString text = m_prompt->text();
        const auto info = m_controller->info();
        if (info && !info->hasTokenizer) {
            std::vector<int64_t> ids;
            for (const QString& word : text.split(' ', Qt::SkipEmptyParts)) {
                bool ok = false;
                ids.push_back(word.toLongLong(&ok));
                if (!ok) return showError(tr("'%1' is not a token id").arg(word));
            }
            if (ids.empty()) return showError(tr("give at least one token id"));
            m_controller->promptIds(ids);
        } else {
            m_controller->prompt(text);
        }
    });
    connect(m_stepButton, &QPushButton::clicked, this, [this] {
        startPromptIfEmpty(); // a scrubbed view stays where it is; the timeline still grows
        m_controller->step();
    });
    connect(m_runButton, &QPushButton::clicked, this, &DecodePanel::toggleRun);
    connect(m_backButton, &QPushButton::clicked, m_controller, &DecodeController::back);
    connect(m_resetButton, &QPushButton::clicked, m_controller, &DecodeController::reset);
    connect(m_greedy, &QCheckBox::toggled, this, [this](bool greedy) {
        for (QWidget* w : std::initializer_list<QWidget*> { m_temperature, m_topK, m_topP, m_seed })
            w->setEnabled(!greedy);
        applySampling();
    });
    connect(m_temperature, &QDoubleSpinBox::valueChanged, this, &DecodePanel::applySampling);
    connect(m_topK, &QSpinBox::valueChanged, this, &DecodePanel::applySampling);
    connect(m_topP, &QDoubleSpinBox::valueChanged, this, &DecodePanel::applySampling);
    connect(m_seed, &QSpinBox::valueChanged, this, &DecodePanel::applySampling);

    // Two rows: the prompt and the stepping buttons, then the sampler. In one row they made the window wider than
    // 1024 px and squeezed the prompt to a few letters.
    m_prompt->setMinimumWidth(260);
    auto* controls = new QWidget;
    auto* rows = new QVBoxLayout(controls);
    rows->setContentsMargins(0, 0, 0, 0);
    auto* stepping = new QHBoxLayout;
    stepping->addWidget(m_prompt, 1);
    for (QWidget* w : std::initializer_list<QWidget*> { m_promptButton, m_stepButton, m_runButton, m_backButton,
             m_resetButton, m_lensButton })
        stepping->addWidget(w);
    m_branchTree = new BranchTreeView; // its own row under these, shown once a force has left a branch
    connect(m_branchTree, &BranchTreeView::branchActivated, this, [this](int branch) {
        m_follow = true;
        m_controller->switchToBranch(static_cast<size_t>(branch));
    });
    auto* sampling = new QHBoxLayout;
    sampling->addWidget(new QLabel(tr("Next token:")));
    for (QWidget* w : std::initializer_list<QWidget*> { m_greedy, m_temperature, m_topK, m_topP, m_seed })
        sampling->addWidget(w);
    sampling->addStretch(1);
    rows->addLayout(stepping);
    rows->addLayout(sampling);
    rows->addWidget(m_branchTree);
    return controls;
}

void DecodePanel::openModel(const QString& path)
{
    m_status->setText(tr("Opening %1 for decoding…").arg(path));
    m_current = -1;
    m_follow = true;
    m_controller->open(path);
    m_lensView->setModelPath(path);
}

void DecodePanel::closeModel()
{
    m_controller->close();
    m_current = -1;
    m_follow = true;
    m_heatmapPositions = m_requestedPositions = -1;
    m_heatmap->setSnapshot(nullptr);
    m_heatmap->setPlaceholder(tr(kNoModel));
    m_link->setRange({});
    emit positionsShown(0);
    m_lensView->setModelPath({});
    m_status->setText(tr("Open a decoder model (File > Open) to decode step by step"));
}

void DecodePanel::setPromptText(const QString& text)
{
    m_prompt->setText(text);
}

QString DecodePanel::promptText() const
{
    return m_prompt->text();
}

void DecodePanel::startPromptIfEmpty()
{
    if (m_controller->steps().empty()) m_promptButton->click();
}

void DecodePanel::toggleRun()
{
    if (m_controller->running()) return m_controller->pause();
    startPromptIfEmpty();
    m_controller->run();
}

SamplerOptions DecodePanel::samplerOptions() const
{
    SamplerOptions o;
    o.temperature = m_greedy->isChecked() ? 0.0f : static_cast<float>(m_temperature->value());
    o.topK = m_topK->value();
    o.topP = static_cast<float>(m_topP->value());
    o.seed = static_cast<uint64_t>(m_seed->value());
    return o;
}

void DecodePanel::setSamplerOptions(const SamplerOptions& o)
{
    const QSignalBlocker b1(m_greedy), b2(m_temperature), b3(m_topK), b4(m_topP), b5(m_seed);
    m_greedy->setChecked(o.temperature == 0.0f);
    if (o.temperature > 0.0f) m_temperature->setValue(o.temperature);
    m_topK->setValue(static_cast<int>(o.topK));
    m_topP->setValue(o.topP);
    m_seed->setValue(static_cast<int>(o.seed));
    for (QWidget* w : std::initializer_list<QWidget*> { m_temperature, m_topK, m_topP, m_seed })
        w->setEnabled(o.temperature > 0.0f);
    applySampling();
}

void DecodePanel::applySampling()
{
    m_controller->setSampling(samplerOptions());
}

void DecodePanel::showStep(int64_t index)
{
    const auto n = static_cast<int64_t>(m_controller->steps().size());
    if (n == 0) return;
    m_current = std::clamp<int64_t>(index, 0, n - 1);
    m_follow = m_current == n - 1;
    m_redraw->schedule();
}

void DecodePanel::flushRedraw()
{
    m_redraw->flush();
    m_heatmap->flushRedraw();
}

void DecodePanel::setHead(int64_t layer, int64_t head)
{
    m_strip->setCurrent(layer, head);
    m_heatmap->setHead(layer, head);
    m_kv->setLayer(layer);
}

void DecodePanel::redraw()
{
    const std::vector<DecodeStepPtr>& steps = m_controller->steps();
    const auto n = static_cast<int64_t>(steps.size());
    m_timeline->setSteps(steps);
    if (m_current < 0 || m_current >= n) {
        m_chart->setStep(nullptr);
        m_strip->setStep(nullptr);
        m_kv->setSteps(steps, 0);
        m_chips->setTokens({});
        emit redrawn();
        return;
    }
    const DecodeStepPtr& s = steps[static_cast<size_t>(m_current)];
    m_timeline->setCurrent(m_current);
    m_chart->setStep(s);
    m_strip->setStep(s);
    m_kv->setSteps(steps, m_current + 1);
    std::vector<TokenChip> tokens;
    for (int64_t i = 0; i <= m_current; ++i)
        tokens.push_back(steps[static_cast<size_t>(i)]->token);
    // A lens pass per step shown, but none while running: a pass per token would hold up the steps.
    if (!m_controller->running()) m_lensView->setTokens(tokens);
    m_chips->setTokens(tokens);
    // One snapshot request per redraw at most: during Run the engine builds them ~25 times a second, not per step.
    if (m_requestedPositions != m_current + 1 || m_heatmapPositions != m_current + 1) {
        m_requestedPositions = m_current + 1;
        m_controller->requestSnapshot(m_current + 1);
    }
    const QString origin = s->origin == TokenOrigin::Prompt ? tr("prompt")
        : s->origin == TokenOrigin::Forced                  ? tr("forced")
        : s->origin == TokenOrigin::Greedy                  ? tr("greedy")
                                                            : tr("sampled");
    m_status->setText(
        tr("Position %1 of %2: %3 (%4), p = %5, entropy %6 bits, %7 ms")
            .arg(m_current)
            .arg(n)
            .arg(displayToken(s->token), origin)
            .arg(std::isnan(s->probability) ? QStringLiteral("—") : QString::number(s->probability, 'f', 3))
            .arg(std::isnan(s->entropyBits) ? QStringLiteral("—") : QString::number(s->entropyBits, 'f', 2))
            .arg(s->seconds * 1e3, 0, 'f', 2));
    emit redrawn();
}

void DecodePanel::updateBranches()
{
    m_branchTree->setTimelines(m_controller->steps(), m_controller->branches());
}

void DecodePanel::showError(const QString& message)
{
    m_lastError = message;
    m_status->setText(tr("Error: %1").arg(message));
    // Shown where no earlier step's heatmap stays (a refused prompt keeps the timeline it would have replaced).
    m_heatmap->setPlaceholder(tr("No attention: %1. Edit the prompt and press Enter to try again.").arg(message));
    emit errorShown(message);
}

} // namespace attn::ui
