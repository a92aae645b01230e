// SPDX-License-Identifier: MIT
#include "caption/caption_panel.h"

#include "caption/caption_diff.h"
#include "caption/caption_figure_export.h"
#include "caption/caption_strip.h"
#include "controller/engine_controller.h"
#include "core/error.h"
#include "vision/patch_map_view.h"
#include "widgets/step_shortcuts.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QScrollArea>
#include <QShortcut>
#include <QSlider>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace attn::ui {

namespace {

constexpr int kDefaultOpacityPercent = 60;

enum StrategyIndex { GreedyIndex, BeamIndex, SampleIndex };

} // namespace

CaptionPanel::CaptionPanel(EngineController* engine, QWidget* parent)
    : QWidget(parent)
    , m_engine(engine)
    , m_samples(new QComboBox)
    , m_strategy(new QComboBox)
    , m_beam(new QSpinBox)
    , m_temperature(new QDoubleSpinBox)
    , m_seed(new QSpinBox)
    , m_maxWords(new QSpinBox)
    , m_stepButton(new QPushButton(tr("Step ▶")))
    , m_runButton(new QPushButton(tr("Run")))
    , m_backButton(new QPushButton(tr("◀ Back")))
    , m_resetButton(new QPushButton(tr("Reset")))
    , m_layer(new QComboBox)
    , m_head(new QComboBox)
    , m_colormap(new QComboBox)
    , m_opacity(new QSlider(Qt::Horizontal))
    , m_smooth(new QCheckBox(tr("S&mooth")))
    , m_maskKind(new QComboBox)
    , m_maskLayer(new QSpinBox)
    , m_maskHead(new QSpinBox)
    , m_maskFactor(new QDoubleSpinBox)
    , m_maskApply(new QPushButton(tr("Apply")))
    , m_maskUndo(new QPushButton(tr("Undo")))
    , m_maskClear(new QPushButton(tr("Clear")))
    , m_maskText(new QLabel)
    , m_caption(new QLabel)
    , m_diff(new QLabel)
    , m_map(new PatchMapView)
    , m_diffMap(new PatchMapView)
    , m_strip(new CaptionStrip)
{
    m_style.opacity = kDefaultOpacityPercent / 100.0;
    m_caption->setObjectName("captionText");
    m_caption->setTextFormat(Qt::RichText);
    m_caption->setWordWrap(true);
    QFont big = m_caption->font();
    big.setPointSizeF(big.pointSizeF() * 1.4);
    m_caption->setFont(big);
    m_diff->setObjectName("captionDiff");
    m_diff->setTextFormat(Qt::RichText);
    m_diff->setWordWrap(true);
    m_map->setStyle(m_style);
    m_map->setMinimumSize(240, 240);
    m_diffMap->setObjectName("captionDiffMap");
    m_diffMap->setMinimumSize(240, 240);
    m_diffMap->setToolTip(tr("How the head mask changed the selected word's cross-attention: with the mask minus "
                             "without it, for the same word after the same words (red: more attention, blue: less)"));
    m_strip->setStyle(m_style, false);

    auto* stripArea = new QScrollArea;
    stripArea->setWidget(m_strip);
    stripArea->setWidgetResizable(true);
    stripArea->setFixedHeight(CaptionStrip::kTileHeight + 30);
    stripArea->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(buildControls());
    layout->addWidget(buildViewBar());
    layout->addWidget(buildMaskBar());
    layout->addWidget(m_caption);
    layout->addWidget(m_diff);
    auto* maps = new QHBoxLayout;
    maps->addWidget(m_map, 1);
    maps->addWidget(m_diffMap, 1);
    layout->addLayout(maps, 1);
    layout->addWidget(new QLabel(tr("Every word so far with its cross-attention (click one to show it large):")));
    layout->addWidget(stripArea);

    addStepShortcuts(this, tr("Caption"), m_stepButton, m_backButton, m_runButton);

    connect(m_stepButton, &QPushButton::clicked, this, &CaptionPanel::step);
    connect(m_backButton, &QPushButton::clicked, this, &CaptionPanel::back);
    connect(m_resetButton, &QPushButton::clicked, this, &CaptionPanel::restart);
    connect(m_runButton, &QPushButton::clicked, this, &CaptionPanel::toggleRun);
    connect(m_strip, &CaptionStrip::wordClicked, this, &CaptionPanel::selectWord);
    connect(m_samples, &QComboBox::activated, this, [this] { openImage(m_samples->currentData().toString()); });
    for (QSpinBox* box : { m_beam, m_seed, m_maxWords })
        connect(box, &QSpinBox::editingFinished, this, &CaptionPanel::restart);
    connect(m_temperature, &QDoubleSpinBox::editingFinished, this, &CaptionPanel::restart);
    connect(m_strategy, &QComboBox::activated, this, &CaptionPanel::restart);
    connect(m_layer, &QComboBox::activated, this, &CaptionPanel::redraw);
    connect(m_head, &QComboBox::activated, this, &CaptionPanel::redraw);
    const auto applyStyle = [this] {
        m_style = { static_cast<Colormap>(m_colormap->currentData().toInt()), m_opacity->value() / 100.0,
            m_smooth->isChecked() };
        m_strip->setStyle(m_style, false);
        redraw();
    };
    connect(m_colormap, &QComboBox::currentIndexChanged, this, applyStyle);
    connect(m_opacity, &QSlider::valueChanged, this, applyStyle);
    connect(m_smooth, &QCheckBox::toggled, this, applyStyle);

    connect(m_maskKind, &QComboBox::activated, this, &CaptionPanel::showMask);
    connect(m_maskApply, &QPushButton::clicked, this, [this] {
        maskHead(static_cast<CaptionAttention>(m_maskKind->currentData().toInt()), m_maskLayer->value(),
            m_maskHead->value(), static_cast<float>(m_maskFactor->value()));
    });
    connect(m_maskUndo, &QPushButton::clicked, this, &CaptionPanel::undoMask);
    connect(m_maskClear, &QPushButton::clicked, this, &CaptionPanel::clearMask);
    // Ctrl+Z only while the tab has the focus: the Intervene tab's Undo has the same keys.
    auto* undo = new QShortcut(QKeySequence::Undo, this, this, &CaptionPanel::undoMask);
    undo->setContext(Qt::WidgetWithChildrenShortcut);

    connect(m_engine, &EngineController::captionReady, this, &CaptionPanel::show);
    connect(m_engine, &EngineController::failed, this, &CaptionPanel::pause);
    connect(m_engine, &EngineController::cancelled, this, &CaptionPanel::pause);
    show(nullptr);
}

QWidget* CaptionPanel::buildControls()
{
    auto* open = new QPushButton(tr("Open &image…"));
    connect(open, &QPushButton::clicked, this, &CaptionPanel::chooseImage);
    m_samples->setToolTip(tr("Held-out sample images shipped with the model"));
    m_samples->setMinimumContentsLength(12);
    m_strategy->addItems({ tr("Greedy"), tr("Beam"), tr("Sample") });
    m_beam->setRange(1, 16);
    m_beam->setValue(4);
    m_beam->setPrefix(tr("beam "));
    m_temperature->setRange(0.0, 5.0);
    m_temperature->setSingleStep(0.1);
    m_temperature->setValue(1.0);
    m_temperature->setPrefix(tr("T "));
    m_seed->setRange(1, 1 << 30);
    m_seed->setValue(1);
    m_seed->setPrefix(tr("seed "));
    m_maxWords->setRange(1, 64);
    m_maxWords->setValue(20);
    m_maxWords->setPrefix(tr("max "));
    m_stepButton->setToolTip(tr("One more word (Right)"));
    m_backButton->setToolTip(tr("Drop the last word (Left)"));
    m_runButton->setToolTip(tr("Generate to the end of the caption / pause (Space)"));
    open->setToolTip(tr("Open an image to caption (or drop one on the window)"));
    m_strategy->setToolTip(tr("Greedy, beam search or sampling"));
    m_beam->setToolTip(tr("Beam search width"));
    m_temperature->setToolTip(tr("Sampling temperature: below 1 sharper, above 1 flatter"));
    m_seed->setToolTip(tr("Random seed of the sampler"));
    m_maxWords->setToolTip(tr("Stop after this many words"));
    m_resetButton->setToolTip(tr("Back to no word"));
    // Two rows, as in the Decode tab: the image and the stepping, then how the next word is chosen (one row is wider
    // than a 1024 px window).
    auto* bar = new QWidget;
    auto* rows = new QVBoxLayout(bar);
    rows->setContentsMargins(0, 0, 0, 0);
    auto* stepping = new QHBoxLayout;
    for (QWidget* w :
        std::initializer_list<QWidget*> { open, m_samples, m_backButton, m_stepButton, m_runButton, m_resetButton })
        stepping->addWidget(w);
    stepping->addStretch(1);
    auto* choosing = new QHBoxLayout;
    choosing->addWidget(new QLabel(tr("Next word:")));
    for (QWidget* w : std::initializer_list<QWidget*> { m_strategy, m_beam, m_temperature, m_seed, m_maxWords })
        choosing->addWidget(w);
    choosing->addStretch(1);
    rows->addLayout(stepping);
    rows->addLayout(choosing);
    return bar;
}

QWidget* CaptionPanel::buildViewBar()
{
    for (Colormap map : allColormaps())
        if (map != Colormap::Diverging) m_colormap->addItem(colormapName(map), static_cast<int>(map));
    m_opacity->setRange(0, 100);
    m_opacity->setValue(kDefaultOpacityPercent);
    m_opacity->setMaximumWidth(100);
    m_opacity->setToolTip(tr("Overlay opacity"));
    auto* exportButton = new QToolButton;
    exportButton->setToolTip(tr("Export the word strip as a figure or its data"));
    m_layer->setToolTip(tr("The decoder layer whose cross-attention the overlays show (or the mean)"));
    m_head->setToolTip(tr("The head, or the mean of the layer's heads"));
    m_colormap->setToolTip(tr("How weights map to colours"));
    m_smooth->setToolTip(tr("Interpolate between patches instead of drawing one block per patch"));
    exportButton->setText(tr("Export"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(exportButton);
    menu->addAction(tr("Strip as PNG…"), this, [this] { chooseExport(tr("PNG image (*.png)")); });
    menu->addAction(tr("Strip as SVG…"), this, [this] { chooseExport(tr("SVG drawing (*.svg)")); });
    menu->addAction(tr("Strip as PDF…"), this, [this] { chooseExport(tr("PDF document (*.pdf)")); });
    menu->addAction(tr("Data as .npy [words, heads, patches]…"), this, [this] { chooseExport(tr("NumPy (*.npy)")); });
    exportButton->setMenu(menu);
    auto* bar = new QWidget;
    auto* h = new QHBoxLayout(bar);
    h->setContentsMargins(0, 0, 0, 0);
    for (QComboBox* box : { m_layer, m_head })
        box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    h->addWidget(new QLabel(tr("Cross-attention:")));
    h->addWidget(m_layer);
    h->addWidget(m_head);
    h->addWidget(m_colormap);
    h->addWidget(new QLabel(tr("opacity")));
    h->addWidget(m_opacity);
    h->addWidget(m_smooth);
    h->addStretch(1);
    h->addWidget(exportButton);
    return bar;
}

QWidget* CaptionPanel::buildMaskBar()
{
    m_maskKind->setObjectName("captionMaskKind");
    m_maskLayer->setObjectName("captionMaskLayer");
    m_maskHead->setObjectName("captionMaskHead");
    m_maskFactor->setObjectName("captionMaskFactor");
    m_maskApply->setObjectName("captionMaskApply");
    m_maskUndo->setObjectName("captionMaskUndo");
    m_maskKind->addItem(tr("encoder"), static_cast<int>(CaptionAttention::Encoder));
    m_maskKind->addItem(tr("decoder self"), static_cast<int>(CaptionAttention::DecoderSelf));
    m_maskKind->addItem(tr("cross"), static_cast<int>(CaptionAttention::Cross));
    m_maskKind->setCurrentIndex(2);
    m_maskLayer->setPrefix(tr("layer "));
    m_maskHead->setPrefix(tr("head "));
    m_maskFactor->setRange(0.0, 4.0);
    m_maskFactor->setSingleStep(0.25);
    m_maskFactor->setValue(0.0);
    m_maskFactor->setPrefix(tr("× "));
    m_maskKind->setToolTip(tr("Which attention the head belongs to: the image encoder's, the decoder's own or its "
                              "cross-attention over the image"));
    m_maskLayer->setToolTip(tr("The layer of that attention"));
    m_maskHead->setToolTip(tr("The head"));
    m_maskFactor->setToolTip(tr("0 removes the head, other values scale its attention weights (HF head_mask); 1 "
                                "takes it out of the mask"));
    m_maskApply->setToolTip(tr("Re-run the caption with this head changed"));
    m_maskUndo->setToolTip(tr("Back to the mask before its last change (Ctrl+Z)"));
    m_maskClear->setToolTip(tr("No head masked: the unmodified model"));
    m_maskText->setToolTip(tr("The heads masked now"));
    // A long mask must not widen the window: the label gives up width and its tooltip has the whole list.
    m_maskText->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto* bar = new QWidget;
    auto* h = new QHBoxLayout(bar);
    h->setContentsMargins(0, 0, 0, 0);
    h->addWidget(new QLabel(tr("Head mask:")));
    for (QWidget* w : std::initializer_list<QWidget*> {
             m_maskKind, m_maskLayer, m_maskHead, m_maskFactor, m_maskApply, m_maskUndo, m_maskClear })
        h->addWidget(w);
    h->addWidget(m_maskText, 1);
    return bar;
}

void CaptionPanel::modelReady(const QString& folder)
{
    m_samples->clear();
    const QDir dir(QDir(folder).filePath("samples"));
    for (const QFileInfo& f : dir.entryInfoList({ "*.png", "*.jpg", "*.jpeg" }, QDir::Files, QDir::Name))
        if (!f.fileName().contains("_mask")) m_samples->addItem(f.fileName(), f.absoluteFilePath());
    m_samples->setEnabled(m_samples->count() > 0);
    m_mask.clear(); // another model's heads
    m_maskHistory.clear();
    if (m_samples->count() > 0) openImage(m_samples->itemData(0).toString());
}

void CaptionPanel::openImage(const QString& path)
{
    m_samples->setCurrentIndex(m_samples->findData(QFileInfo(path).absoluteFilePath()));
    m_followNewest = true;
    m_engine->caption({ CaptionRequest::Action::Open, path, options() });
}

void CaptionPanel::step()
{
    m_followNewest = true;
    m_engine->caption({ CaptionRequest::Action::Step, {}, {} });
}

void CaptionPanel::pause()
{
    m_running = false;
    m_runButton->setText(tr("Run"));
}

void CaptionPanel::back()
{
    pause();
    m_followNewest = true;
    m_engine->caption({ CaptionRequest::Action::Back, {}, {} });
}

void CaptionPanel::restart()
{
    if (!m_state) return;
    pause();
    m_followNewest = true;
    m_engine->caption({ CaptionRequest::Action::Restart, {}, options() });
}

void CaptionPanel::maskHead(CaptionAttention kind, int64_t layer, int64_t head, float factor)
{
    if (!m_state) return;
    try {
        const int64_t row = captionMaskRow(m_state->headRows, kind, layer);
        if (head < 0 || head >= m_state->headRows.heads)
            throw Error("the captioner has no head " + std::to_string(head));
        // The bar shows the head last changed, so that Apply after a call from elsewhere changes the same head.
        m_maskKind->setCurrentIndex(m_maskKind->findData(static_cast<int>(kind)));
        showMask();
        m_maskLayer->setValue(static_cast<int>(layer));
        m_maskHead->setValue(static_cast<int>(head));
        m_maskFactor->setValue(factor);
        setMask(withEntry(m_mask, { row, head, factor }));
    } catch (const Error& e) {
        emit errorShown(QString::fromStdString(e.what()));
    }
}

void CaptionPanel::clearMask()
{
    setMask({});
}

void CaptionPanel::setMask(std::vector<CaptionMaskEntry> mask)
{
    if (mask == m_mask) return;
    m_maskHistory.push_back(std::move(m_mask));
    m_mask = std::move(mask);
    rerunMasked();
}

void CaptionPanel::undoMask()
{
    if (m_maskHistory.empty()) return;
    m_mask = std::move(m_maskHistory.back());
    m_maskHistory.pop_back();
    rerunMasked();
}

void CaptionPanel::rerunMasked()
{
    showMask();
    if (!m_state) return;
    pause();
    CaptionRequest request { CaptionRequest::Action::Restart, {}, options() };
    request.replay = static_cast<int64_t>(m_state->words.size());
    m_engine->caption(request);
}

void CaptionPanel::showMask()
{
    const Seq2SeqHeadRows rows = m_state ? m_state->headRows : Seq2SeqHeadRows {};
    const bool encoder = static_cast<CaptionAttention>(m_maskKind->currentData().toInt()) == CaptionAttention::Encoder;
    m_maskLayer->setRange(
        0, static_cast<int>(std::max<int64_t>(0, (encoder ? rows.encoderLayers : rows.decoderLayers) - 1)));
    m_maskHead->setRange(0, static_cast<int>(std::max<int64_t>(0, rows.heads - 1)));
    for (QWidget* w :
        std::initializer_list<QWidget*> { m_maskKind, m_maskLayer, m_maskHead, m_maskFactor, m_maskApply })
        w->setEnabled(m_state != nullptr);
    m_maskUndo->setEnabled(!m_maskHistory.empty());
    m_maskClear->setEnabled(!m_mask.empty());
    const QString text = m_mask.empty() ? tr("none (the unmodified model)") : captionMaskText(m_mask, rows);
    m_maskText->setText(text);
    m_maskText->setToolTip(tr("The heads masked now: %1").arg(text));
}

void CaptionPanel::toggleRun()
{
    m_running = !m_running;
    m_runButton->setText(m_running ? tr("Pause") : tr("Run"));
    if (m_running) step();
}

void CaptionPanel::selectWord(int word)
{
    const int n = m_state ? static_cast<int>(m_state->words.size()) : 0;
    m_followNewest = word < 0 || word == n - 1;
    m_selected = word < 0 ? n - 1 : std::min(word, n - 1);
    redraw();
}

CaptionOptions CaptionPanel::options() const
{
    CaptionOptions o;
    o.strategy = m_strategy->currentIndex() == BeamIndex ? CaptionStrategy::Beam
        : m_strategy->currentIndex() == SampleIndex      ? CaptionStrategy::Sample
                                                         : CaptionStrategy::Greedy;
    o.beamWidth = m_beam->value();
    o.maxNewTokens = m_maxWords->value();
    o.sampling.temperature = static_cast<float>(m_temperature->value());
    o.sampling.seed = static_cast<uint64_t>(m_seed->value());
    if (m_state) o.headMask = captionHeadMask(m_mask, m_state->headRows);
    return o;
}

void CaptionPanel::setOptions(const CaptionOptions& o)
{
    m_strategy->setCurrentIndex(o.strategy == CaptionStrategy::Beam ? BeamIndex
            : o.strategy == CaptionStrategy::Sample                 ? SampleIndex
                                                                    : GreedyIndex);
    m_beam->setValue(static_cast<int>(o.beamWidth));
    m_maxWords->setValue(static_cast<int>(o.maxNewTokens));
    m_temperature->setValue(o.sampling.temperature);
    m_seed->setValue(static_cast<int>(o.sampling.seed));
    restart();
}

void CaptionPanel::setHead(int64_t layer, int64_t head)
{
    m_layer->setCurrentIndex(static_cast<int>(layer));
    m_head->setCurrentIndex(static_cast<int>(head + 1));
    redraw();
}

int64_t CaptionPanel::layer() const
{
    return std::max(0, m_layer->currentIndex());
}

int64_t CaptionPanel::head() const
{
    return m_head->currentIndex() - 1;
}

void CaptionPanel::show(CaptionPtr state)
{
    const bool reshaped = !state || !m_state || state->layers != m_state->layers || state->heads != m_state->heads;
    m_state = std::move(state);
    if (reshaped) {
        m_layer->clear();
        m_head->clear();
        if (m_state) {
            for (int64_t l = 0; l < m_state->layers; ++l)
                m_layer->addItem(tr("decoder layer %1").arg(l));
            m_layer->setCurrentIndex(static_cast<int>(m_state->layers - 1));
            m_head->addItem(tr("mean of heads"));
            for (int64_t h = 0; h < m_state->heads; ++h)
                m_head->addItem(tr("head %1").arg(h));
        }
    }
    const int n = m_state ? static_cast<int>(m_state->words.size()) : 0;
    if (m_followNewest || m_selected >= n) m_selected = n - 1;
    for (QPushButton* b : { m_stepButton, m_runButton })
        b->setEnabled(m_state && !m_state->finished);
    m_backButton->setEnabled(n > 0);
    m_resetButton->setEnabled(m_state != nullptr);
    showMask();
    redraw();
    if (m_running && m_state && !m_state->finished)
        step();
    else
        pause();
    emit captionShown();
}

void CaptionPanel::redraw()
{
    if (!m_state) {
        m_caption->setText(tr("Open an image-to-text model (File > Demo models > Captioner), then an image."));
        m_map->setMessage(QString(), tr("No image yet"));
        m_strip->setState(nullptr, 0, -1);
        m_diff->hide();
        showDifferenceMap();
        return;
    }
    showComparison();
    QStringList words;
    for (size_t w = 0; w < m_state->wordTexts.size(); ++w) {
        const QString text = m_state->wordTexts[w].toHtmlEscaped();
        words << (static_cast<int>(w) == m_selected ? "<b><u>" + text + "</u></b>" : text);
    }
    if (m_state->finished) words << "<span style='color:gray'>■</span>";
    m_caption->setText(words.isEmpty() ? tr("<i>Step (Right) or Run (Space) to caption %1</i>")
                                             .arg(QFileInfo(m_state->source).fileName().toHtmlEscaped())
                                       : words.join(' '));
    const QString headName = m_head->currentText();
    // Before the first word the image is shown bare (no overlay).
    m_map->setStyle(m_selected < 0 ? OverlayStyle { m_style.colormap, 0.0, false } : m_style);
    if (m_selected < 0) {
        m_map->setContent(m_state->image, m_state->grid,
            std::vector<float>(static_cast<size_t>(m_state->grid.patches()), 0.0f), tr("the image"));
    } else {
        const CaptionWord& w = m_state->words[static_cast<size_t>(m_selected)];
        m_map->setContent(m_state->image, m_state->grid,
            m_state->patchMap(static_cast<size_t>(m_selected), layer(), head()),
            tr("“%1” (p = %2): cross-attention of decoder layer %3, %4")
                .arg(m_state->wordTexts[static_cast<size_t>(m_selected)])
                .arg(w.probability, 0, 'f', 3)
                .arg(layer())
                .arg(headName));
    }
    m_strip->setState(m_state, layer(), head());
    m_strip->setSelected(m_selected);
    showDifferenceMap();
}

void CaptionPanel::showDifferenceMap()
{
    const bool shown = m_state && m_state->comparison.has_value();
    m_diffMap->setVisible(shown);
    // Side by side the two maps' titles take the same two lines, so that both images start at the same height.
    m_map->setReservedTitleLines(shown ? 2 : 1);
    m_diffMap->setReservedTitleLines(2);
    if (!shown) return;
    m_diffMap->setStyle({ Colormap::Diverging, m_style.opacity, m_style.smooth });
    if (m_selected < 0 || !m_state->hasDifference()) {
        m_diffMap->setMessage(tr("Change under the head mask"), tr("Step to see how each word's attention changes"));
        return;
    }
    const auto word = static_cast<size_t>(m_selected);
    std::vector<float> difference = m_state->patchDifference(word, layer(), head());
    const bool unchanged = std::all_of(difference.begin(), difference.end(), [](float v) { return v == 0.0f; });
    m_diffMap->setContent(m_state->image, m_state->grid, std::move(difference),
        tr("“%1” with the mask − without: decoder layer %2, %3%4")
            .arg(m_state->wordTexts[word])
            .arg(layer())
            .arg(m_head->currentText(), unchanged ? tr(" (unchanged)") : tr(" (red: more, blue: less)")));
}

namespace {

/// `words` joined by spaces, those `changed` marked in `style`.
QString markedWords(const std::vector<QString>& words, const std::vector<bool>& changed, const QString& style)
{
    QStringList out;
    for (size_t w = 0; w < words.size(); ++w) {
        const QString text = words[w].toHtmlEscaped();
        out << (changed[w] ? QStringLiteral("<span style='%1'>%2</span>").arg(style, text) : text);
    }
    return out.isEmpty() ? QStringLiteral("<i>(nothing)</i>") : out.join(' ');
}

} // namespace

void CaptionPanel::showComparison()
{
    m_diff->setVisible(m_state->comparison.has_value());
    if (!m_state->comparison) return;
    const CaptionComparison& c = *m_state->comparison;
    const CaptionDiff d = diffCaptions(c.unmasked.ids, c.masked.ids);
    m_diff->setText(tr("Whole caption without the mask: %1<br>With the mask: %2%3")
                        .arg(markedWords(c.unmasked.words, d.removed, "color:#b03a2e; text-decoration:line-through"),
                            markedWords(c.masked.words, d.added, "color:#1e7d3c; font-weight:bold"),
                            d.same() ? tr(" <i>(unchanged)</i>") : QString()));
}

void CaptionPanel::chooseImage()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open image"), QString(), tr("Images (*.png *.jpg *.jpeg *.bmp *.ppm);;All files (*)"));
    if (!path.isEmpty()) openImage(path);
}

void CaptionPanel::chooseExport(const QString& filter)
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export caption"), QString(), filter);
    if (!path.isEmpty()) exportTo(path);
}

void CaptionPanel::exportTo(const QString& path)
{
    try {
        if (!m_state) throw Error("export: open an image first");
        if (QFileInfo(path).suffix().toLower() == "npy")
            writeCaptionNpy(*m_state, layer(), path.toStdString());
        else
            renderCaptionStrip(m_state, layer(), head(), m_style, path, figureFormatFromPath(path));
    } catch (const std::exception& e) {
        emit errorShown(QString::fromStdString(e.what()));
    }
}

} // namespace attn::ui
