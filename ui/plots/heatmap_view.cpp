// SPDX-License-Identifier: MIT
#include "plots/heatmap_view.h"

#include "model/token_text.h"
#include "plots/color_gradient.h"
#include "plots/color_map_grid.h"
#include "plots/heatmap_minimap.h"
#include "plots/heatmap_search.h"
#include "plots/overview_image.h"
#include "widgets/redraw_coalescer.h"
#include "widgets/token_link.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace attn::ui {

namespace {

// Up to this many tokens per side a window is drawn token by token (read as whole rows of the window); a wider view
// shows an overview level of blocks, so a long input never needs a head's full matrix.
constexpr int64_t kWindowCells = 256;
// Zoomed out, an overview level draws at most about this many cells across the visible span.
constexpr int64_t kOverviewCells = 512;
// What a wheel notch keeps of the visible span.
constexpr double kWheelZoom = 0.75;
// "Go to token" zooms to this many tokens around the position.
constexpr double kJumpSpan = 48;

/// 1, 2, 5, 10, 20, 50, ... at least `step`: labels at round positions, evenly spaced.
int64_t niceStep(int64_t step) {
    for (int64_t base = 1;; base *= 10)
        for (const int64_t m : { 1, 2, 5 })
            if (m * base >= step) return m * base;
}

// Key labels, when they do not fit side by side, are turned this many degrees.
constexpr double kKeyLabelDegrees = 60;

// The tokens [first, last] that `range` shows of `n`.
std::pair<int64_t, int64_t> visibleTokens(int64_t n, const QCPRange& range)
{
    const int64_t first
        = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(range.lower)), 0, std::max<int64_t>(0, n - 1));
    const int64_t last = std::clamp<int64_t>(static_cast<int64_t>(std::floor(range.upper)), 0, n - 1);
    return { first, last };
}

// Longer token texts are cut to this many characters: fewer where many tokens are visible.
int labelChars(int64_t count)
{
    return count > 40 ? 8 : 14;
}

// Every `step`-th of the visible tokens, at round positions; with a step over 1 (or many tokens) each names its
// position too, unless its text is that position already.
QSharedPointer<QCPAxisTickerText> tokenTicker(const std::vector<TokenChip>& tokens, const QCPRange& range, int64_t step)
{
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const auto n = static_cast<int64_t>(tokens.size());
    if (n == 0) return ticker;
    const auto [first, last] = visibleTokens(n, range);
    const int maxChars = labelChars(last - first + 1);
    for (int64_t i = (first + step - 1) / step * step; i <= last; i += step) {
        const QString text = elidedToken(tokens[static_cast<size_t>(i)], maxChars);
        // Maps whose labels are their own indices (heads, layers) would read "2 2".
        const bool numbered = (step > 1 || n > 1000) && text != QString::number(i);
        ticker->addTick(static_cast<double>(i), numbered ? QString("%1 %2").arg(i).arg(text) : text);
    }
    return ticker;
}

// The round step between labelled tokens at which labels `spacing` pixels apart fit an axis `pixels` long.
int64_t labelStep(int64_t n, const QCPRange& range, int pixels, double spacing)
{
    if (n == 0) return 1;
    const auto [first, last] = visibleTokens(n, range);
    const double count = static_cast<double>(std::max<int64_t>(1, last - first + 1));
    return niceStep(std::max<int64_t>(1, static_cast<int64_t>(std::ceil(count * spacing / std::max(1, pixels)))));
}

// `span` coordinates around `centre`, moved (or cut to all of them) to stay on the n cells [-0.5, n - 0.5]: a token
// near the end shows the last cells, not blank space past them.
QCPRange spanAround(double centre, double span, int64_t n)
{
    const double last = static_cast<double>(n) - 0.5;
    span = std::min(span, last + 0.5);
    const double lower = std::clamp(centre - span / 2, -0.5, last - span);
    return { lower, lower + span };
}

/// The colour bar, its top and bottom aligned with the axis rect's by a margin group. QCustomPlot's own colour scale
/// reports the margin it was last given as the one it needs, so the group's margin could grow (a long input's turned
/// key labels) but never shrink back: a short input shown next kept the long one's bottom margin, a smaller data area
/// and thinned row labels. The bar needs no margin of its own; the axis rect's labels set the group's.
class AlignedColorScale : public QCPColorScale {
public:
    using QCPColorScale::QCPColorScale;

protected:
    int calculateAutoMargin(QCP::MarginSide side) override { return QCP::getMarginValue(minimumMargins(), side); }
};

} // namespace

HeatmapView::HeatmapView(QWidget* parent)
    : QWidget(parent)
    , m_redraw(new RedrawCoalescer(this, [this] { rebuild(); })) {
    m_colormapBox = new QComboBox(this);
    m_colormapBox->setObjectName("heatmapColormap");
    m_colormapBox->setToolTip(tr("How weights map to colours"));
    for (Colormap map : allColormaps())
        m_colormapBox->addItem(colormapName(map), static_cast<int>(map));
    m_scaleBox = new QComboBox(this);
    m_scaleBox->setObjectName("heatmapScale");
    m_scaleBox->setToolTip(tr("Linear, log10 (small weights visible) or each row stretched to its maximum"));
    m_scaleBox->addItem(tr("linear"), static_cast<int>(ScaleMode::Linear));
    m_scaleBox->addItem(tr("log10"), static_cast<int>(ScaleMode::Log));
    m_scaleBox->addItem(tr("per-row normalized"), static_cast<int>(ScaleMode::RowNormalized));
    // The two switches in a menu: as check boxes in the controls row they took the width that the find box needed
    // beside the Decode tab's plots at 1024 px.
    auto* options = new QMenu(this);
    options->setToolTipsVisible(true);
    m_excludeFirst = options->addAction(tr("E&xclude first token"));
    m_excludeFirst->setToolTip(tr("Hide key 0 (often an attention sink) and renormalize the other keys"));
    m_showMask = options->addAction(tr("Show &mask"));
    m_showMask->setToolTip(tr("Show where the structural mask (causal, padding, window) lets a query see a key"));
    for (QAction* option : { m_excludeFirst, m_showMask })
        option->setCheckable(true);
    // A push button: it keeps room for its menu arrow, which a tool button drew over the text's last letter.
    m_optionsButton = new QPushButton(this);
    m_optionsButton->setObjectName("heatmapOptions");
    m_optionsButton->setMenu(options);
    m_optionsButton->setToolTip(tr("Exclude the first token, show the mask"));
    showOptionsOn();
    auto* reset = new QPushButton(tr("&Reset zoom"), this);
    reset->setToolTip(tr("Show the whole matrix again (the wheel zooms, dragging pans)"));

    m_plot = new QCustomPlot(this);
    m_plot->setObjectName("heatmapPlot");
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    // A wheel notch shows 3/4 of the span: eight notches zoom about 10x (QCustomPlot's 0.85 gives under 4x, too
    // slow to reach tokens of a long input).
    m_plot->axisRect()->setRangeZoomFactor(kWheelZoom);
    m_plot->setMouseTracking(true);
    m_plot->plotLayout()->insertRow(0);
    m_title = new QCPTextElement(m_plot, QString(), QFont(font().family(), 11, QFont::Bold));
    m_plot->plotLayout()->addElement(0, 0, m_title);
    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_map->setInterpolate(false);
    m_map->setTightBoundary(false);
    m_scale = new AlignedColorScale(m_plot);
    m_plot->plotLayout()->addElement(1, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_map->setColorScale(m_scale);
    auto* group = new QCPMarginGroup(m_plot);
    m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    m_plot->yAxis->setRangeReversed(true);
    // The linked-hover bands live on their own buffered layer: moving them repaints that layer alone.
    m_plot->addLayer("linked", m_plot->layer("main"), QCustomPlot::limAbove);
    m_plot->layer("linked")->setMode(QCPLayer::lmBuffered);
    for (QCPItemRect** band : { &m_rowBand, &m_columnBand }) {
        *band = new QCPItemRect(m_plot);
        (*band)->setLayer("linked");
        (*band)->setPen(QPen(QColor(255, 255, 255, 220), 1.5));
        (*band)->setBrush(QColor(255, 255, 255, 60));
        (*band)->setVisible(false);
    }
    m_plot->installEventFilter(this);

    m_minimap = new HeatmapMinimap(this);
    m_jump = new QSpinBox(this);
    m_jump->setObjectName("heatmapJump");
    m_jump->setToolTip(tr("Zoom to the queries and keys around this token position"));
    m_side = new QWidget(this);
    auto* side = new QVBoxLayout(m_side);
    side->setContentsMargins(0, 0, 0, 0);
    side->addWidget(m_minimap);
    side->addWidget(new QLabel(tr("Go to token:"), m_side));
    side->addWidget(m_jump);
    side->addStretch(1);
    m_side->hide();
    m_search = new HeatmapSearch(this, m_plot, m_minimap, [this](double row, double col) { centerOn(row, col, true); });

    // Find is in the controls row, above the plot, so that it is there for an input of any length.
    m_controls = new QWidget(this);
    auto* controls = new QHBoxLayout(m_controls);
    controls->setContentsMargins(0, 0, 0, 0);
    controls->addWidget(new QLabel(tr("Colormap:"), this));
    controls->addWidget(m_colormapBox);
    controls->addWidget(new QLabel(tr("Scale:"), this));
    controls->addWidget(m_scaleBox);
    controls->addWidget(m_optionsButton);
    controls->addStretch(1);
    controls->addWidget(m_search->box());
    controls->addWidget(m_search->countLabel());
    controls->addWidget(reset);
    auto* body = new QHBoxLayout;
    body->addWidget(m_plot, 1);
    body->addWidget(m_side);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_controls);
    layout->addLayout(body, 1);
    connect(m_minimap, &HeatmapMinimap::jumpRequested, this, [this](int64_t row, int64_t col) {
        centerOn(static_cast<double>(row), static_cast<double>(col), false);
    });
    connect(m_jump, &QSpinBox::editingFinished, this,
        [this] { centerOn(m_jump->value(), m_jump->value(), true); });
    connect(m_plot->xAxis, QOverload<const QCPRange&>::of(&QCPAxis::rangeChanged), this, [this] { viewportChanged(); });
    connect(m_plot->yAxis, QOverload<const QCPRange&>::of(&QCPAxis::rangeChanged), this, [this] { viewportChanged(); });

    connect(m_plot, &QCustomPlot::afterLayout, this, &HeatmapView::labelsAfterLayout);
    connect(m_plot, &QCustomPlot::mouseMove, this, &HeatmapView::onMouseMove);
    connect(m_colormapBox, &QComboBox::currentIndexChanged, this,
        [this] { setColormap(static_cast<Colormap>(m_colormapBox->currentData().toInt())); });
    const auto optionsChanged = [this] {
        HeatmapOptions o;
        o.scale = static_cast<ScaleMode>(m_scaleBox->currentData().toInt());
        o.excludeFirstToken = m_excludeFirst->isChecked();
        o.showMask = m_showMask->isChecked();
        setOptions(o);
    };
    connect(m_scaleBox, &QComboBox::currentIndexChanged, this, optionsChanged);
    connect(m_excludeFirst, &QAction::toggled, this, optionsChanged);
    connect(m_showMask, &QAction::toggled, this, optionsChanged);
    connect(reset, &QPushButton::clicked, this, [this] {
        resetZoom();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    });
}

HeatmapView::~HeatmapView() = default;

void HeatmapView::setSnapshot(SnapshotPtr snapshot) {
    const bool another = snapshot != m_snapshot;
    m_snapshot = std::move(snapshot);
    if (another) m_search->snapshotChanged();
    m_pending.clear(); // keys name snapshots by address, which a later one may reuse
    m_failed.clear();
    m_redraw->schedule();
}

void HeatmapView::setPlaceholder(const QString& text)
{
    m_placeholder = text;
    m_redraw->schedule();
}

QString HeatmapView::titleText() const
{
    return m_title->text();
}

void HeatmapView::setHead(int64_t layer, int64_t head) {
    m_layer = layer;
    m_head = head;
    m_redraw->schedule();
}

void HeatmapView::setColormap(Colormap map) {
    m_colormap = map;
    const int index = m_colormapBox->findData(static_cast<int>(map));
    if (index != m_colormapBox->currentIndex()) m_colormapBox->setCurrentIndex(index);
    m_redraw->schedule();
}

void HeatmapView::setOptions(const HeatmapOptions& options) {
    m_options = options;
    m_scaleBox->setCurrentIndex(m_scaleBox->findData(static_cast<int>(options.scale)));
    m_excludeFirst->setChecked(options.excludeFirstToken);
    m_showMask->setChecked(options.showMask);
    showOptionsOn();
    m_redraw->schedule();
}

void HeatmapView::showOptionsOn()
{
    // The button says how many are on: hidden in the menu, a switched-on option would otherwise go unseen.
    const int on = int(m_excludeFirst->isChecked()) + int(m_showMask->isChecked());
    m_optionsButton->setText(on == 0 ? tr("Options") : tr("Options (%1 on)").arg(on));
}

void HeatmapView::setLink(TokenLink* link)
{
    m_link = link;
    connect(link, &TokenLink::hoveredChanged, this, &HeatmapView::showLinked);
    connect(link, &TokenLink::rangeChanged, this, &HeatmapView::applyRange);
}

void HeatmapView::applyRange()
{
    if (!m_link || !m_snapshot || m_publishing) return;
    const auto [q0, q1] = m_link->range().span(false, m_snapshot->numQueries());
    const auto [k0, k1] = m_link->range().span(true, m_snapshot->numKeys());
    // Cell i is centred on coordinate i.
    m_applying = true;
    m_plot->xAxis->setRange(static_cast<double>(k0) - 0.5, static_cast<double>(k1) - 0.5);
    m_plot->yAxis->setRange(static_cast<double>(q0) - 0.5, static_cast<double>(q1) - 0.5);
    m_applying = false;
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapView::publishRange()
{
    if (!m_link || !m_snapshot || m_applying) return;
    // The tokens whose cells are at least half inside the view; the whole axis is "to the end" (-1).
    const auto span = [](const QCPRange& r, int64_t n) {
        const int64_t begin = std::clamp<int64_t>(std::lround(r.lower + 0.5), 0, std::max<int64_t>(0, n - 1));
        const int64_t end = std::clamp<int64_t>(std::lround(r.upper + 0.5), std::min(begin + 1, n), n);
        return std::pair { begin, end == n ? int64_t(-1) : end };
    };
    const auto [q0, q1] = span(m_plot->yAxis->range(), m_snapshot->numQueries());
    const auto [k0, k1] = span(m_plot->xAxis->range(), m_snapshot->numKeys());
    m_publishing = true; // the views that follow the range, not this one, which already shows it
    m_link->setRange({ q0, q1, k0, k1 });
    m_publishing = false;
}

void HeatmapView::showLinked()
{
    const LinkedTokens t = m_link ? m_link->hovered() : LinkedTokens {};
    const bool row = m_snapshot && t.query >= 0 && t.query < m_snapshot->numQueries();
    const bool column = m_snapshot && t.key >= 0 && t.key < m_snapshot->numKeys();
    if (row) {
        m_rowBand->topLeft->setCoords(-0.5, static_cast<double>(t.query) - 0.5);
        m_rowBand->bottomRight->setCoords(
            static_cast<double>(m_snapshot->numKeys()) - 0.5, static_cast<double>(t.query) + 0.5);
    }
    if (column) {
        m_columnBand->topLeft->setCoords(static_cast<double>(t.key) - 0.5, -0.5);
        m_columnBand->bottomRight->setCoords(
            static_cast<double>(t.key) + 0.5, static_cast<double>(m_snapshot->numQueries()) - 0.5);
    }
    if (!row && !column && !m_rowBand->visible() && !m_columnBand->visible()) return;
    m_rowBand->setVisible(row);
    m_columnBand->setVisible(column);
    m_plot->layer("linked")->replot();
}

std::pair<int64_t, int64_t> HeatmapView::linkedBands() const
{
    const auto middle = [](double a, double b) { return static_cast<int64_t>(std::lround((a + b) / 2)); };
    const QPointF rowA = m_rowBand->topLeft->coords(), rowB = m_rowBand->bottomRight->coords();
    const QPointF colA = m_columnBand->topLeft->coords(), colB = m_columnBand->bottomRight->coords();
    return { m_rowBand->visible() ? middle(rowA.y(), rowB.y()) : -1,
        m_columnBand->visible() ? middle(colA.x(), colB.x()) : -1 };
}

bool HeatmapView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_plot && event->type() == QEvent::Leave && m_link) m_link->setHovered({});
    return QWidget::eventFilter(watched, event);
}

void HeatmapView::setControlsVisible(bool visible) { m_controls->setVisible(visible); }

void HeatmapView::setCaption(const HeatmapCaption& caption) {
    m_caption = caption;
    m_redraw->schedule();
}

void HeatmapView::flushRedraw() {
    m_redraw->flush();
    m_plot->replot(QCustomPlot::rpImmediateRefresh);
}

void HeatmapView::layoutPlot(const QSize& size) {
    m_plot->setViewport(QRect(QPoint(0, 0), size));
    flushRedraw(); // lays the axes out at `size`
    if (m_matrix.values.empty()) return;
    updateAxisLabels(); // their spacing depends on that layout
    m_plot->replot(QCustomPlot::rpImmediateRefresh);
}

bool HeatmapView::isLong() const {
    return m_snapshot && (m_snapshot->numQueries() > kWindowCells || m_snapshot->numKeys() > kWindowCells);
}

HeatmapMatrix HeatmapView::whileDeriving(const std::string& key, std::function<void()> compute) {
    if (m_pending != key && m_failed != key) {
        m_pending = key;
        m_deriver(this, std::move(compute), [this, key](const QString& error) {
            if (m_pending == key) m_pending.clear();
            if (!error.isEmpty()) {
                m_failed = key;
                m_failure = error;
            }
            m_redraw->schedule(); // now at hand, or the failure to show
        });
    }
    const auto thumbnail = m_snapshot->cachedOverview(m_layer, m_head, AttentionSource::kThumbnailSide);
    return thumbnail ? buildHeatmapOverview(thumbnail->levels.front(), m_options) : HeatmapMatrix {};
}

HeatmapMatrix HeatmapView::buildVisible() {
    if (!isLong()) return buildHeatmapMatrix(*m_snapshot, m_layer, m_head, m_options);
    // The derivations asked of the engine thread: one per snapshot, head and window; the snapshot is kept alive by
    // the job, so its address names it for as long as the key matters.
    const std::string head = std::to_string(reinterpret_cast<quintptr>(m_snapshot.get())) + "/"
        + std::to_string(m_layer) + "." + std::to_string(m_head);
    const QCPRange x = m_plot->xAxis->range(), y = m_plot->yAxis->range();
    const auto clampIndex = [](double v, int64_t n) { return std::clamp<int64_t>(static_cast<int64_t>(v), 0, n); };
    const int64_t k0 = clampIndex(std::floor(x.lower + 0.5), m_snapshot->numKeys());
    const int64_t k1 = std::max(k0 + 1, clampIndex(std::ceil(x.upper + 0.5), m_snapshot->numKeys()));
    const int64_t q0 = clampIndex(std::floor(y.lower + 0.5), m_snapshot->numQueries());
    const int64_t q1 = std::max(q0 + 1, clampIndex(std::ceil(y.upper + 0.5), m_snapshot->numQueries()));
    const bool thumbnail = m_snapshot->cachedOverview(m_layer, m_head, AttentionSource::kThumbnailSide) != nullptr;
    if (k1 - k0 <= kWindowCells && q1 - q0 <= kWindowCells) {
        if (m_deriver && (!thumbnail || !m_snapshot->cachedRows(m_layer, m_head, q0, q1)))
            return whileDeriving(head + "/rows " + std::to_string(q0) + ":" + std::to_string(q1),
                [s = m_snapshot, l = m_layer, h = m_head, q0, q1] {
                    s->rows(l, h, q0, q1);
                    s->overview(l, h, AttentionSource::kThumbnailSide); // the minimap's
                });
        m_pending.clear();
        return buildHeatmapWindow(*m_snapshot, m_layer, m_head, m_options, q0, q1, k0, k1);
    }
    if (m_deriver && !m_snapshot->cachedOverview(m_layer, m_head))
        return whileDeriving(head + "/overview", [s = m_snapshot, l = m_layer, h = m_head] { s->overview(l, h); });
    m_pending.clear();
    const auto overview = m_snapshot->overview(m_layer, m_head);
    const int64_t span = std::max(k1 - k0, q1 - q0);
    const OverviewLevel* level = &overview->levels.back();
    for (const OverviewLevel& l : overview->levels)
        if (l.block * kOverviewCells >= span && l.rows > 1 && l.cols > 1) {
            level = &l;
            break;
        }
    return buildHeatmapOverview(*level, m_options);
}

void HeatmapView::rebuild() {
    const bool empty = !m_snapshot || m_layer >= m_snapshot->numLayers() || m_head >= m_snapshot->numHeads();
    // With nothing to show, no axes and no colour scale: an empty 0..5 grid beside a 0..6 scale reads as data.
    m_plot->xAxis->setVisible(!empty);
    m_plot->yAxis->setVisible(!empty);
    m_scale->setVisible(!empty);
    if (empty) {
        m_matrix = {};
        m_map->data()->clear();
        m_side->hide();
        // A view that names what it will show (a caption) says that instead of the long generic placeholder.
        m_title->setText(m_caption.title.isEmpty() ? m_placeholder : m_caption.title);
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const bool shapeChanged = m_shownQueries != m_snapshot->numQueries() || m_shownKeys != m_snapshot->numKeys();
    m_shownQueries = m_snapshot->numQueries();
    m_shownKeys = m_snapshot->numKeys();
    if (shapeChanged) {
        // The link's range where there is one: the window starts a new shape's range from all of it, and a view
        // shown for the first time must not reset a range the other views already show.
        const QSignalBlocker blockX(m_plot->xAxis), blockY(m_plot->yAxis);
        resetZoom();
        applyRange();
    }
    m_matrix = buildVisible();
    // Cell c covers tokens [first + c * block, first + (c + 1) * block): its centre sits in the middle.
    const double half = static_cast<double>(m_matrix.block - 1) / 2.0;
    const auto axis = [&](int64_t first, int64_t cells) {
        const auto centre = [&](int64_t cell) { return static_cast<double>(first + cell * m_matrix.block) + half; };
        return GridAxis { static_cast<int>(cells), centre(0), centre(std::max<int64_t>(1, cells) - 1),
            static_cast<double>(m_matrix.block) };
    };
    fillColorMapGrid(m_map->data(), axis(m_matrix.firstCol, m_matrix.cols), axis(m_matrix.firstRow, m_matrix.rows),
        [&](int c, int r) { return m_matrix.at(r, c); });
    // The mask is drawn in grayscale (white = visible) whatever the colormap.
    m_map->setGradient(colorGradient(m_options.showMask ? Colormap::Grayscale : m_colormap));
    m_map->setDataRange(QCPRange(m_matrix.low, m_matrix.high));
    const char* scaleName[] = { "weight", "log10 weight", "weight / row max" };
    m_scale->axis()->setLabel(m_options.showMask ? tr("visible")
            : !m_caption.value.isEmpty()         ? m_caption.value
            : m_matrix.block > 1                 ? tr("block max weight")
                                                 : tr(scaleName[static_cast<int>(m_options.scale)]));
    QString title = tr("Layer %1 · Head %2").arg(m_layer).arg(m_head);
    if (m_snapshot->numKvHeads() != m_snapshot->numHeads())
        title += tr("  (KV head %1)").arg(m_snapshot->kvHeadOf(m_head));
    if (m_options.showMask) title += tr("  — mask");
    // What the plot shows instead of tokens goes on a line of its own: on one line the title set the plot's minimum
    // width (QCustomPlot's layout takes its elements' widths), so a long input's overview made the window wider than a
    // 1024 px screen, which cut the title off.
    if (isDeriving())
        title += tr("\ncomputing…");
    else if (!m_failed.empty() && m_matrix.values.empty())
        title += tr("\n%1").arg(m_failure);
    else if (m_matrix.block > 1)
        title += tr("\noverview: max of %1×%1-token blocks, zoom in for tokens").arg(m_matrix.block);
    m_title->setText(m_caption.title.isEmpty() ? title : m_caption.title);
    // Exported figures are read without the window's "Show:" box, so the axes say which sequence is which.
    m_plot->xAxis->setLabel(
        !m_caption.x.isEmpty() ? m_caption.x : m_snapshot->isCross() ? tr("key (source)") : tr("key"));
    m_plot->yAxis->setLabel(
        !m_caption.y.isEmpty() ? m_caption.y : m_snapshot->isCross() ? tr("query (target)") : tr("query"));
    m_side->setVisible(isLong());
    if (isLong()) {
        const auto thumbnail = m_deriver ? m_snapshot->cachedOverview(m_layer, m_head, AttentionSource::kThumbnailSide)
                                         : m_snapshot->overview(m_layer, m_head, AttentionSource::kThumbnailSide);
        m_minimap->setImage(thumbnail ? overviewImage(thumbnail->levels.front(), m_colormap) : QImage(),
            m_snapshot->numQueries(), m_snapshot->numKeys());
        m_jump->setRange(0, static_cast<int>(std::max(m_snapshot->numQueries(), m_snapshot->numKeys()) - 1));
        const QCPRange x = m_plot->xAxis->range(), y = m_plot->yAxis->range();
        m_minimap->setViewport(QRectF(x.lower + 0.5, y.lower + 0.5, x.size(), y.size()));
    }
    updateAxisLabels();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapView::viewportChanged() {
    publishRange();
    if (!m_snapshot || m_matrix.values.empty()) return;
    updateAxisLabels();
    if (isLong()) m_redraw->schedule(); // another window or overview level, and the minimap's frame
}

void HeatmapView::centerOn(double row, double col, bool zoom) {
    if (!m_snapshot) return;
    const QCPRange x = m_plot->xAxis->range(), y = m_plot->yAxis->range();
    m_plot->xAxis->setRange(spanAround(col, zoom ? kJumpSpan : x.size(), m_snapshot->numKeys()));
    m_plot->yAxis->setRange(spanAround(row, zoom ? kJumpSpan : y.size(), m_snapshot->numQueries()));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapView::resetZoom() {
    // Cell i is centred on coordinate i, so the whole matrix spans [-0.5, n - 0.5].
    m_plot->xAxis->setRange(-0.5, static_cast<double>(m_shownKeys) - 0.5);
    m_plot->yAxis->setRange(-0.5, static_cast<double>(m_shownQueries) - 0.5);
}

HeatmapView::AxisLabels HeatmapView::axisLabels() const
{
    // The axis rect as the last layout pass left it: the real space, however narrow (a third of the Mechanisms tab).
    const QRect rect = m_plot->axisRect()->rect();
    const QFontMetrics metrics(m_plot->xAxis->tickLabelFont());
    const double line = metrics.height() + 2;
    const QCPRange keys = m_plot->xAxis->range();
    const auto n = static_cast<int64_t>(m_snapshot->tokens().size());
    AxisLabels labels;
    // Key labels lie flat while every one fits its own column, else they turn; turned by θ, neighbours are parallel
    // lines dx·sin θ apart, so they need dx ≥ line / sin θ.
    if (n > 0 && n <= 8) {
        const auto [first, last] = visibleTokens(n, keys);
        const int64_t count = std::max<int64_t>(1, last - first + 1);
        int widest = 0;
        for (int64_t i = first; i <= last; ++i)
            widest = std::max(widest,
                metrics.horizontalAdvance(
                    elidedToken(m_snapshot->tokens()[static_cast<size_t>(i)], labelChars(count))));
        labels.turned = widest + line > static_cast<double>(rect.width()) / static_cast<double>(count);
    } else {
        labels.turned = n > 8;
    }
    const double keySpacing = labels.turned ? line / std::sin(kKeyLabelDegrees * std::numbers::pi / 180) : 0;
    labels.keyStep = labels.turned ? labelStep(n, keys, rect.width(), keySpacing) : 1;
    labels.queryStep = labelStep(
        static_cast<int64_t>(m_snapshot->queryTokens().size()), m_plot->yAxis->range(), rect.height(), line);
    return labels;
}

void HeatmapView::updateAxisLabels()
{
    // New content or range at the same size: the margins the new labels make must be allowed to re-space them again
    // (a redraw after two re-spacings left the Compare tab's query labels spaced for the rect before it).
    m_respacings = 0;
    spaceAxisLabels();
}

void HeatmapView::spaceAxisLabels()
{
    m_labels = axisLabels();
    m_plot->xAxis->setTicker(tokenTicker(m_snapshot->tokens(), m_plot->xAxis->range(), m_labels.keyStep));
    m_plot->xAxis->setTickLabelRotation(m_labels.turned ? kKeyLabelDegrees : 0);
    m_plot->yAxis->setTicker(tokenTicker(m_snapshot->queryTokens(), m_plot->yAxis->range(), m_labels.queryStep));
    m_plot->xAxis->setSubTicks(false);
    m_plot->yAxis->setSubTicks(false);
}

void HeatmapView::labelsAfterLayout()
{
    // The spacing needs the axis rect's size, which only a layout pass knows: a pass that changed it (a resize, the
    // first show) spaces the labels again and draws once more.
    if (!m_snapshot || m_matrix.values.empty() || axisLabels() == m_labels) return;
    // The new labels change the margins, hence the rect, again: twice per plot size, so that they cannot swing back
    // and forth.
    if (m_plot->size() != m_respacedSize) {
        m_respacedSize = m_plot->size();
        m_respacings = 0;
    }
    if (m_respacings >= 2) return;
    ++m_respacings;
    spaceAxisLabels();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QPoint HeatmapView::cellCenter(int64_t row, int64_t col) const {
    const double x = m_plot->xAxis->coordToPixel(static_cast<double>(col));
    const double y = m_plot->yAxis->coordToPixel(static_cast<double>(row));
    return m_plot->mapTo(this, QPoint(static_cast<int>(std::lround(x)), static_cast<int>(std::lround(y))));
}

QString HeatmapView::maskReason(int64_t row, int64_t col) const {
    const MaskSpec& m = m_snapshot->mask(m_layer);
    if (!m.keyKeep.empty() && m.keyKeep[static_cast<size_t>(col)] == 0) return tr("padding");
    if (m.causal && col > m.queryOffset + row) return tr("causal (future token)");
    return tr("sliding window");
}

QString HeatmapView::cellToolTip(int64_t row, int64_t col) const {
    if (!m_snapshot || row < 0 || col < 0 || row >= m_snapshot->numQueries() || col >= m_snapshot->numKeys()) return {};
    QString text = tr("query %1: %2\nkey %3: %4\n")
                       .arg(row)
                       .arg(displayToken(m_snapshot->queryTokens()[static_cast<size_t>(row)]))
                       .arg(col)
                       .arg(displayToken(m_snapshot->tokens()[static_cast<size_t>(col)]));
    if (!m_snapshot->visible(m_layer, row, col)) return text + tr("masked: %1").arg(maskReason(row, col));
    int64_t offset = 0;
    const auto rows = hoverRows(row, &offset);
    if (!rows) return text + tr("zoom in to read this token's weight");
    const float* weights = rows->data() + offset;
    return text
        + tr("weight: %1\nrank in row: %2 of %3")
              .arg(static_cast<double>(weights[col]), 0, 'g', 5)
              .arg(rankInRow(weights, m_snapshot->numKeys(), col))
              .arg(m_snapshot->numKeys());
}

std::shared_ptr<const Tensor> HeatmapView::hoverRows(int64_t row, int64_t* offset) const {
    *offset = 0;
    if (!m_deriver || !isLong()) return m_snapshot->rows(m_layer, m_head, row, row + 1);
    // Hovering must not wait for the engine thread: only the rows of the window drawn token by token are at hand.
    if (m_matrix.block != 1 || row < m_matrix.firstRow || row >= m_matrix.firstRow + m_matrix.rows) return nullptr;
    *offset = (row - m_matrix.firstRow) * m_snapshot->numKeys();
    return m_snapshot->cachedRows(m_layer, m_head, m_matrix.firstRow, m_matrix.firstRow + m_matrix.rows);
}

void HeatmapView::onMouseMove(QMouseEvent* event) {
    if (m_matrix.values.empty() || !m_plot->axisRect()->rect().contains(event->pos())) {
        QToolTip::hideText();
        if (m_link) m_link->setHovered({});
        return;
    }
    const auto col = static_cast<int64_t>(std::lround(m_plot->xAxis->pixelToCoord(event->pos().x())));
    const auto row = static_cast<int64_t>(std::lround(m_plot->yAxis->pixelToCoord(event->pos().y())));
    const QString text = cellToolTip(row, col);
    if (m_link) m_link->setHovered(text.isEmpty() ? LinkedTokens {} : LinkedTokens { row, col });
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
}

} // namespace attn::ui
