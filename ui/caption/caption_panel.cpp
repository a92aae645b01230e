// SPDX-License-Identifier: MIT
#include "caption/caption_panel.h"

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
#include <QSlider>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

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
    , m_caption(new QLabel)
    , m_map(new PatchMapView)
    , m_strip(new CaptionStrip)
{
    m_style.opacity = kDefaultOpacityPercent / 100.0;
    m_caption->setObjectName("captionText");
    m_caption->setTextFormat(Qt::RichText);
    m_caption->setWordWrap(true);
    QFont big = m_caption->font();
    big.setPointSizeF(big.pointSizeF() * 1.4);
    m_caption->setFont(big);
    m_map->setStyle(m_style);
    m_map->setMinimumSize(240, 240);
    m_strip->setStyle(m_style, false);

    auto* stripArea = new QScrollArea;
    stripArea->setWidget(m_strip);
    stripArea->setWidgetResizable(true);
    stripArea->setFixedHeight(CaptionStrip::kTileHeight + 30);
    stripArea->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(buildControls());
    layout->addWidget(buildViewBar());
    layout->addWidget(m_caption);
    layout->addWidget(m_map, 1);
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

void CaptionPanel::modelReady(const QString& folder)
{
    m_samples->clear();
    const QDir dir(QDir(folder).filePath("samples"));
    for (const QFileInfo& f : dir.entryInfoList({ "*.png", "*.jpg", "*.jpeg" }, QDir::Files, QDir::Name))
        if (!f.fileName().contains("_mask")) m_samples->addItem(f.fileName(), f.absoluteFilePath());
    m_samples->setEnabled(m_samples->count() > 0);
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
        return;
    }
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
