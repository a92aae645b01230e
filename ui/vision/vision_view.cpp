// SPDX-License-Identifier: MIT
#include "vision/vision_view.h"

#include "core/error.h"
#include "core/npy.h"
#include "export/vision_figure_export.h"
#include "vision/image_conversion.h"
#include "vision/patch_map_view.h"
#include "vision/vision_controller.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMimeData>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace attn::ui {

namespace {
constexpr int kDefaultOpacityPercent = 60;
} // namespace

VisionView::VisionView(EngineController* engine, QWidget* parent)
    : QWidget(parent)
    , m_controller(new VisionController(engine, this))
    , m_maps(new VisionFigure(VisionPanel::Maps))
    , m_heads(new VisionFigure(VisionPanel::Heads))
    , m_layerBox(new QSpinBox)
    , m_headBox(new QSpinBox)
    , m_fusionBox(new QComboBox)
    , m_discardBox(new QDoubleSpinBox)
    , m_colormapBox(new QComboBox)
    , m_opacity(new QSlider(Qt::Horizontal))
    , m_smooth(new QCheckBox(tr("S&mooth")))
    , m_showGrid(new QCheckBox(tr("&Grid")))
    , m_queryLabel(new QLabel)
{
    setObjectName("visionView");
    setAcceptDrops(true);

    auto* openButton = new QPushButton(tr("Open &image…"));
    auto* clsButton = new QPushButton(tr("[CLS]"));
    clsButton->setToolTip(tr("Show the attention of the class token"));
    m_layerBox->setPrefix(tr("layer "));
    m_headBox->setPrefix(tr("head "));
    m_headBox->setMinimum(-1);
    m_headBox->setSpecialValueText(tr("mean of heads"));
    for (HeadFusion fusion : { HeadFusion::Mean, HeadFusion::Max, HeadFusion::Min })
        m_fusionBox->addItem(
            tr("rollout: %1 of heads").arg(QString::fromStdString(headFusionName(fusion))), static_cast<int>(fusion));
    m_fusionBox->setObjectName("fusionBox");
    m_fusionBox->setToolTip(tr("How the rollout and flow maps fuse the heads of each layer"));
    m_discardBox->setObjectName("discardBox");
    m_discardBox->setRange(0.0, 0.99);
    m_discardBox->setSingleStep(0.05);
    m_discardBox->setDecimals(2);
    m_discardBox->setPrefix(tr("discard "));
    m_discardBox->setToolTip(
        tr("Share of each layer's smallest fused attention entries dropped before the rollout and flow (0: none)"));
    for (Colormap map : allColormaps())
        if (map != Colormap::Diverging) m_colormapBox->addItem(colormapName(map), static_cast<int>(map));
    m_opacity->setRange(0, 100);
    m_opacity->setValue(kDefaultOpacityPercent);
    m_opacity->setMaximumWidth(100);
    m_opacity->setToolTip(tr("Overlay opacity"));
    m_showGrid->setChecked(true);
    openButton->setToolTip(tr("Open an image to classify (or drop one on the window)"));
    m_layerBox->setToolTip(tr("The layer whose attention the overlay shows"));
    m_headBox->setToolTip(tr("The head, or the mean of the layer's heads"));
    m_colormapBox->setToolTip(tr("How weights map to colours"));
    m_smooth->setToolTip(tr("Interpolate between patches instead of drawing one block per patch"));
    m_showGrid->setToolTip(tr("Draw the patch grid over the image"));
    m_style.opacity = kDefaultOpacityPercent / 100.0;
    m_queryLabel->setMinimumWidth(80);
    m_queryLabel->setToolTip(tr("The token whose attention is shown: click a patch in a map to select it"));

    // Two rows, what is shown then how it is drawn: in one row the tab needed more than a 1024 px window.
    auto* bar = new QVBoxLayout;
    auto* what = new QHBoxLayout;
    what->addWidget(openButton);
    what->addWidget(m_layerBox);
    what->addWidget(m_headBox);
    what->addWidget(clsButton);
    what->addWidget(m_queryLabel, 1);
    auto* how = new QHBoxLayout;
    how->addWidget(m_fusionBox);
    how->addWidget(m_discardBox);
    how->addWidget(m_colormapBox);
    how->addWidget(new QLabel(tr("opacity")));
    how->addWidget(m_opacity);
    how->addWidget(m_smooth);
    how->addWidget(m_showGrid);
    how->addStretch(1);
    bar->addLayout(what);
    bar->addLayout(how);

    m_maps->setObjectName(kFigureObjectName);
    m_maps->setHint(tr("Open an image (button above, or drop a file here) to classify it."));
    auto* gridScroll = new QScrollArea;
    gridScroll->setWidget(m_heads);
    gridScroll->setWidgetResizable(true);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    // The maps are square, so height beyond their width is empty: the rest goes to the heads grid.
    layout->addWidget(m_maps, 1);
    layout->addWidget(gridScroll, 1);

    connect(openButton, &QPushButton::clicked, this, &VisionView::chooseImage);
    connect(clsButton, &QPushButton::clicked, this, [this] { setQuery(0); });
    const auto applyHead = [this] { setHead(m_layerBox->value(), m_headBox->value()); };
    connect(m_layerBox, &QSpinBox::valueChanged, this, applyHead);
    connect(m_headBox, &QSpinBox::valueChanged, this, applyHead);
    const auto applyRollout = [this] {
        RolloutOptions options;
        options.fusion = static_cast<HeadFusion>(m_fusionBox->currentData().toInt());
        options.discardRatio = m_discardBox->value();
        setRolloutOptions(options);
    };
    connect(m_fusionBox, &QComboBox::currentIndexChanged, this, applyRollout);
    connect(m_discardBox, &QDoubleSpinBox::valueChanged, this, applyRollout);
    const auto applyStyle = [this] {
        setStyle({ static_cast<Colormap>(m_colormapBox->currentData().toInt()), m_opacity->value() / 100.0,
            m_smooth->isChecked() });
    };
    connect(m_colormapBox, &QComboBox::currentIndexChanged, this, applyStyle);
    connect(m_opacity, &QSlider::valueChanged, this, applyStyle);
    connect(m_smooth, &QCheckBox::toggled, this, applyStyle);
    connect(m_showGrid, &QCheckBox::toggled, m_maps, &VisionFigure::setShowGrid);
    connect(m_maps, &VisionFigure::patchClicked, this,
        [this](qint64 patch) { setQuery((result() ? result()->prefixTokens : 0) + patch); });
    connect(m_heads, &VisionFigure::headClicked, this, [this](qint64 layer, qint64 head) { setHead(layer, head); });

    connect(m_controller, &VisionController::resultReady, this, &VisionView::setResult);
    connect(m_controller, &VisionController::failed, this, &VisionView::errorShown);
    connect(m_controller, &VisionController::rolloutReady, this,
        [this](VisionResultPtr r, const RolloutOptions& options, const Tensor& rollout) {
            if (r != result() || !sameRollout(options, m_rolloutOptions)) return; // a newer setting is pending
            m_maps->setRollout(options, rollout);
            emit rolloutShown();
            requestFlow();
        });
    connect(m_controller, &VisionController::flowReady, this,
        [this](VisionResultPtr r, qint64 query, const RolloutOptions& options, const std::vector<float>& patches) {
            if (r != result() || query != this->query() || !sameRollout(options, m_rolloutOptions)) return;
            m_maps->setFlow(patches);
            emit flowShown();
        });
    connect(m_controller, &VisionController::flowFailed, this,
        [this](VisionResultPtr r, qint64 query, const RolloutOptions& options, const QString& message) {
            if (r == result() && query == this->query() && sameRollout(options, m_rolloutOptions))
                m_maps->setFlowMessage(message);
        });
}

void VisionView::chooseImage()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open image"), QString(),
        tr("Images (*.png *.jpg *.jpeg *.bmp *.gif *.webp);;Preprocessed pixels [C, H, W] (*.npy);;All files (*)"));
    if (!path.isEmpty()) openImage(path);
}

void VisionView::openImage(const QString& path)
{
    try {
        if (QFileInfo(path).suffix().toLower() == "npy")
            m_controller->classifyPixels(readNpy(path.toStdString()), path);
        else
            m_controller->classify(loadImageFile(path), path);
    } catch (const std::exception& e) {
        emit errorShown(QString::fromStdString(e.what()));
    }
}

void VisionView::closeModel()
{
    m_controller->close();
    m_flowReady = false;
    for (VisionFigure* figure : { m_maps, m_heads })
        figure->clear();
    updateQueryLabel();
}

void VisionView::setResult(VisionResultPtr result)
{
    {
        const QSignalBlocker blockLayer(m_layerBox), blockHead(m_headBox);
        m_layerBox->setRange(0, static_cast<int>(result->numLayers() - 1));
        m_headBox->setRange(-1, static_cast<int>(result->numHeads() - 1));
    }
    for (VisionFigure* figure : { m_maps, m_heads }) {
        figure->setResult(result);
        figure->setSelection(m_layerBox->value(), m_headBox->value(), figure->query());
    }
    updateQueryLabel();
    // The result comes with the mean-fusion rollout; any other setting is recomputed off the GUI thread.
    if (sameRollout(m_rolloutOptions, RolloutOptions {}))
        requestFlow();
    else
        m_controller->requestRollout(result, m_rolloutOptions);
    emit resultShown();
}

void VisionView::setQuery(int64_t token)
{
    if (!result()) return;
    const int64_t query = std::clamp<int64_t>(token, 0, result()->numTokens() - 1);
    if (query == this->query()) return;
    for (VisionFigure* figure : { m_maps, m_heads })
        figure->setSelection(figure->layer(), figure->head(), query);
    updateQueryLabel();
    requestFlow();
}

void VisionView::setHead(int64_t layer, int64_t head)
{
    const QSignalBlocker blockLayer(m_layerBox), blockHead(m_headBox);
    m_layerBox->setValue(static_cast<int>(layer)); // the spin boxes clamp
    m_headBox->setValue(static_cast<int>(head));
    if (result()) m_maps->setSelection(m_layerBox->value(), m_headBox->value(), query());
}

void VisionView::setStyle(const OverlayStyle& style)
{
    m_style = style;
    m_maps->setStyle(style);
    m_heads->setStyle(style);
}

void VisionView::setRolloutOptions(const RolloutOptions& options)
{
    {
        const QSignalBlocker blockFusion(m_fusionBox), blockDiscard(m_discardBox);
        m_fusionBox->setCurrentIndex(m_fusionBox->findData(static_cast<int>(options.fusion)));
        m_discardBox->setValue(options.discardRatio);
    }
    if (sameRollout(options, m_rolloutOptions)) return;
    m_rolloutOptions = options;
    if (!result()) return;
    m_maps->setFlowMessage(tr("Computing…"));
    m_controller->requestRollout(result(), options);
}

void VisionView::requestFlow()
{
    if (result()->numTokens() > kAttentionFlowMaxTokens) return; // the flow map states the cap
    m_controller->requestFlow(result(), query(), m_maps->rolloutOptions());
}

void VisionView::updateQueryLabel()
{
    m_queryLabel->setText(tr("query: %1").arg(m_maps->queryName()));
}

FigureRecipe VisionView::figureRecipe() const
{
    const VisionResultPtr r = result();
    if (!r) throw Error("export: classify an image first (Vision tab > Open image)");
    FigureRecipe recipe;
    recipe.view = FigureView::Vision;
    recipe.model = m_controller->modelPath().toStdString();
    recipe.image = r->source;
    recipe.layer = m_maps->layer();
    recipe.head = m_maps->head();
    recipe.selectedToken = m_maps->query();
    recipe.colormap = m_style.colormap;
    recipe.vision.panel = VisionPanel::Maps;
    recipe.vision.rollout = m_maps->rolloutOptions();
    recipe.vision.opacity = m_style.opacity;
    recipe.vision.smooth = m_style.smooth;
    recipe.vision.showGrid = m_showGrid->isChecked();
    recipe.width = m_maps->width();
    recipe.height = m_maps->height();
    return recipe;
}

void VisionView::exportFigure(const QString& path, FigureFormat format, int dpi) const
{
    FigureRecipe recipe = figureRecipe();
    recipe.dpi = dpi;
    VisionMaps shown { m_maps->rollout(), flowView()->values() }; // no recomputation of what is on screen
    renderVisionFigure(result(), recipe, path, format, std::move(shown));
}

void VisionView::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls() && event->mimeData()->urls().first().isLocalFile()) event->acceptProposedAction();
}

void VisionView::dropEvent(QDropEvent* event)
{
    openImage(event->mimeData()->urls().first().toLocalFile());
    event->acceptProposedAction();
}

} // namespace attn::ui
