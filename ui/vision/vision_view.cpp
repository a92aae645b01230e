// SPDX-License-Identifier: MIT
#include "vision/vision_view.h"

#include "analysis/rollout.h"
#include "export/figure_export.h"
#include "vision/image_conversion.h"
#include "vision/patch_map_view.h"
#include "vision/vision_controller.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMimeData>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>

namespace attn::ui {

namespace {
constexpr int kThumbSize = 92;
constexpr int kDefaultOpacityPercent = 60;
} // namespace

VisionView::VisionView(QWidget* parent)
    : QWidget(parent)
    , m_controller(new VisionController(this))
    , m_attention(new PatchMapView)
    , m_rollout(new PatchMapView)
    , m_flow(new PatchMapView)
    , m_headGrid(new QGridLayout)
    , m_plot(new QCustomPlot)
    , m_layerBox(new QSpinBox)
    , m_headBox(new QSpinBox)
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
    for (Colormap map : allColormaps())
        if (map != Colormap::Diverging) m_colormapBox->addItem(colormapName(map), static_cast<int>(map));
    m_opacity->setRange(0, 100);
    m_opacity->setValue(kDefaultOpacityPercent);
    m_opacity->setMaximumWidth(120);
    m_opacity->setToolTip(tr("Overlay opacity"));
    m_showGrid->setChecked(true);
    m_style.opacity = kDefaultOpacityPercent / 100.0;

    auto* bar = new QHBoxLayout;
    bar->addWidget(openButton);
    bar->addWidget(m_layerBox);
    bar->addWidget(m_headBox);
    bar->addWidget(clsButton);
    bar->addWidget(m_queryLabel, 1);
    bar->addWidget(m_colormapBox);
    bar->addWidget(new QLabel(tr("opacity")));
    bar->addWidget(m_opacity);
    bar->addWidget(m_smooth);
    bar->addWidget(m_showGrid);

    m_bars = new QCPBars(m_plot->yAxis, m_plot->xAxis); // horizontal bars keep class names readable
    m_bars->setBrush(QColor(120, 150, 200));
    m_bars->setPen(Qt::NoPen);
    m_plot->yAxis->setRangeReversed(true);
    m_plot->xAxis->setLabel(tr("probability"));
    m_plot->xAxis->setRange(0, 1);
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, new QCPTextElement(m_plot, tr("top-5 classes")));
    m_plot->setMinimumWidth(200);

    auto* mapsHost = new QWidget; // what Export > figure draws: the maps and the classes, not the controls
    mapsHost->setObjectName(kFigureObjectName);
    auto* maps = new QHBoxLayout(mapsHost);
    maps->setContentsMargins(0, 0, 0, 0);
    maps->addWidget(m_attention, 1);
    maps->addWidget(m_rollout, 1);
    maps->addWidget(m_flow, 1);
    maps->addWidget(m_plot, 1);

    auto* gridHost = new QWidget;
    gridHost->setLayout(m_headGrid);
    m_headGrid->setSpacing(2);
    auto* gridScroll = new QScrollArea;
    gridScroll->setWidget(gridHost);
    gridScroll->setWidgetResizable(true);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(mapsHost, 3);
    layout->addWidget(gridScroll, 2);

    const QString hint = tr("Open an image (button above, or drop a file here) to classify it.");
    m_attention->setMessage(tr("Attention"), hint);
    m_rollout->setMessage(tr("Rollout"), QString());
    m_flow->setMessage(tr("Attention flow"), QString());

    connect(openButton, &QPushButton::clicked, this, &VisionView::chooseImage);
    connect(clsButton, &QPushButton::clicked, this, [this] { setQuery(0); });
    const auto applyHead = [this] { setHead(m_layerBox->value(), m_headBox->value()); };
    connect(m_layerBox, &QSpinBox::valueChanged, this, applyHead);
    connect(m_headBox, &QSpinBox::valueChanged, this, applyHead);
    const auto applyStyle = [this] {
        setStyle({ static_cast<Colormap>(m_colormapBox->currentData().toInt()), m_opacity->value() / 100.0,
            m_smooth->isChecked() });
    };
    connect(m_colormapBox, &QComboBox::currentIndexChanged, this, applyStyle);
    connect(m_opacity, &QSlider::valueChanged, this, applyStyle);
    connect(m_smooth, &QCheckBox::toggled, this, applyStyle);
    connect(m_showGrid, &QCheckBox::toggled, this, [this](bool show) {
        for (PatchMapView* view : { m_attention, m_rollout, m_flow })
            view->setShowGrid(show);
    });
    for (PatchMapView* view : { m_attention, m_rollout, m_flow })
        connect(view, &PatchMapView::patchClicked, this,
            [this](qint64 patch) { setQuery((m_result ? m_result->prefixTokens : 0) + patch); });

    connect(m_controller, &VisionController::resultReady, this, &VisionView::setResult);
    connect(m_controller, &VisionController::failed, this, &VisionView::errorShown);
    connect(m_controller, &VisionController::flowReady, this,
        [this](VisionResultPtr result, qint64 query, const std::vector<float>& patches) {
            if (result != m_result || query != m_query) return; // a newer selection is pending
            m_flow->setContent(result->image, result->grid, patches, tr("Attention flow into %1").arg(queryName()));
            emit flowShown();
        });
    connect(m_controller, &VisionController::flowFailed, this,
        [this](VisionResultPtr result, qint64 query, const QString& message) {
            if (result == m_result && query == m_query) m_flow->setMessage(tr("Attention flow"), message);
        });
}

void VisionView::chooseImage()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open image"), QString(), tr("Images (*.png *.jpg *.jpeg *.bmp *.gif *.webp);;All files (*)"));
    if (!path.isEmpty()) openImage(path);
}

void VisionView::openImage(const QString& path)
{
    try {
        m_controller->classify(loadImageFile(path));
    } catch (const std::exception& e) {
        emit errorShown(QString::fromStdString(e.what()));
    }
}

void VisionView::setResult(VisionResultPtr result)
{
    m_result = std::move(result);
    {
        const QSignalBlocker blockLayer(m_layerBox), blockHead(m_headBox);
        m_layerBox->setRange(0, static_cast<int>(m_result->numLayers() - 1));
        m_headBox->setRange(-1, static_cast<int>(m_result->numHeads() - 1));
    }
    m_query = std::clamp<int64_t>(m_query, 0, m_result->numTokens() - 1);
    rebuildHeadGrid();
    refreshClasses();
    refresh();
    emit resultShown();
}

void VisionView::setQuery(int64_t token)
{
    if (!m_result) return;
    m_query = std::clamp<int64_t>(token, 0, m_result->numTokens() - 1);
    refresh();
}

void VisionView::setHead(int64_t layer, int64_t head)
{
    const QSignalBlocker blockLayer(m_layerBox), blockHead(m_headBox);
    m_layerBox->setValue(static_cast<int>(layer)); // the spin boxes clamp
    m_headBox->setValue(static_cast<int>(head));
    if (m_result)
        m_attention->setContent(m_result->image, m_result->grid,
            m_result->patchAttention(m_layerBox->value(), m_headBox->value(), m_query),
            m_headBox->value() < 0
                ? tr("Layer %1, mean of heads: attention of %2").arg(m_layerBox->value()).arg(queryName())
                : tr("Layer %1, head %2: attention of %3")
                      .arg(m_layerBox->value())
                      .arg(m_headBox->value())
                      .arg(queryName()));
}

void VisionView::setStyle(const OverlayStyle& style)
{
    m_style = style;
    for (PatchMapView* view : { m_attention, m_rollout, m_flow })
        view->setStyle(style);
    for (PatchMapView* view : m_headViews)
        view->setStyle(style);
}

QString VisionView::queryName() const
{
    return m_result ? QString::fromStdString(m_result->tokenNames[static_cast<size_t>(m_query)]) : QString();
}

void VisionView::rebuildHeadGrid()
{
    for (PatchMapView* view : m_headViews)
        delete view;
    m_headViews.clear();
    for (int64_t l = 0; l < m_result->numLayers(); ++l)
        for (int64_t h = 0; h < m_result->numHeads(); ++h) {
            auto* view = new PatchMapView;
            view->setFixedSize(kThumbSize, kThumbSize + 14);
            view->setShowGrid(false);
            view->setStyle(m_style);
            view->setToolTip(tr("Layer %1, head %2 (click to show it above)").arg(l).arg(h));
            connect(view, &PatchMapView::patchClicked, this, [this, l, h] { setHead(l, h); });
            m_headGrid->addWidget(view, static_cast<int>(l), static_cast<int>(h));
            m_headViews.push_back(view);
        }
}

void VisionView::refresh()
{
    if (!m_result) return;
    const int64_t patch = m_query - m_result->prefixTokens; // negative for [CLS] / [DIST]
    m_queryLabel->setText(tr("query: %1 (click a patch to select it)").arg(queryName()));
    setHead(m_layerBox->value(), m_headBox->value());
    m_rollout->setContent(m_result->image, m_result->grid, m_result->rolloutPatches(m_query),
        tr("Rollout (mean of heads) of %1").arg(queryName()));
    for (PatchMapView* view : { m_attention, m_rollout, m_flow })
        view->setSelectedPatch(patch);
    for (int64_t l = 0; l < m_result->numLayers(); ++l)
        for (int64_t h = 0; h < m_result->numHeads(); ++h)
            m_headViews[static_cast<size_t>(l * m_result->numHeads() + h)]->setContent(
                m_result->image, m_result->grid, m_result->patchAttention(l, h, m_query), tr("L%1 H%2").arg(l).arg(h));
    if (m_result->numTokens() > kAttentionFlowMaxTokens) {
        m_flow->setMessage(tr("Attention flow"),
            tr("Not computed: %1 tokens (flow is limited to %2).")
                .arg(m_result->numTokens())
                .arg(kAttentionFlowMaxTokens));
        return;
    }
    m_flow->setMessage(tr("Attention flow"), tr("Computing…"));
    m_controller->requestFlow(m_result, m_query);
}

void VisionView::refreshClasses()
{
    QVector<double> ticks, values;
    QVector<QString> labels;
    for (size_t i = 0; i < m_result->topClasses.size(); ++i) {
        ticks << static_cast<double>(i);
        values << m_result->topClasses[i].probability;
        labels << QString("%1 (%2)")
                      .arg(QString::fromStdString(m_result->topClasses[i].label))
                      .arg(m_result->topClasses[i].probability, 0, 'f', 3);
    }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    ticker->addTicks(ticks, labels);
    m_plot->yAxis->setTicker(ticker);
    m_plot->yAxis->setRange(-0.6, std::max<double>(4.6, static_cast<double>(ticks.size()) - 0.4));
    m_bars->setData(ticks, values, true);
    m_plot->replot();
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
