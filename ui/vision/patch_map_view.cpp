// SPDX-License-Identifier: MIT
#include "vision/patch_map_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <QTextLayout>

#include <algorithm>

namespace attn::ui {

namespace {
// Four maps side by side at 1024 px are ~250 px wide: "Attention flow (mean of heads) into [CLS]" needs two lines.
constexpr int kMaxTitleLines = 2;
constexpr int kTitleMargin = 2;
} // namespace

PatchMapView::PatchMapView(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(false);
    setCursor(Qt::PointingHandCursor);
}

void PatchMapView::setContent(const QImage& image, PatchGrid grid, std::vector<float> values, const QString& title)
{
    patchColorImage(values, grid, m_style); // validates before anything changes
    m_image = image;
    m_grid = grid;
    m_values = std::move(values);
    m_title = title;
    m_message.clear();
    update();
}

void PatchMapView::setMessage(const QString& title, const QString& message)
{
    m_title = title;
    m_message = message;
    m_values.clear();
    update();
}

void PatchMapView::setStyle(const OverlayStyle& style)
{
    m_style = style;
    update();
}

void PatchMapView::setShowGrid(bool show)
{
    m_showGrid = show;
    update();
}

void PatchMapView::setSelectedPatch(int64_t patch)
{
    m_selected = patch;
    update();
}

void PatchMapView::setReservedTitleLines(int lines)
{
    m_reservedTitleLines = std::clamp(lines, 1, kMaxTitleLines);
    update();
}

QStringList PatchMapView::titleLines() const
{
    QStringList lines;
    if (m_title.isEmpty()) return lines;
    const int width = std::max(1, this->width() - 2 * kTitleMargin);
    QTextLayout layout(m_title, font());
    QTextOption option;
    option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere); // a word wider than the map breaks, not clips
    layout.setTextOption(option);
    layout.beginLayout();
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
        line.setLineWidth(width);
        if (lines.size() == kMaxTitleLines - 1) { // the last line left: what remains, elided if it must be
            lines << fontMetrics().elidedText(m_title.mid(line.textStart()).trimmed(), Qt::ElideRight, width);
            break;
        }
        lines << m_title.mid(line.textStart(), line.textLength()).trimmed();
    }
    layout.endLayout();
    return lines;
}

QImage PatchMapView::overlayImage(QSize size) const
{
    return patchOverlay(m_image, m_values, m_grid, m_style, size);
}

QRect PatchMapView::imageRect() const
{
    const int titleHeight = m_title.isEmpty()
        ? 0
        : static_cast<int>(std::max<qsizetype>(m_reservedTitleLines, titleLines().size())) * fontMetrics().height() + 4;
    const QRect area = rect().adjusted(2, titleHeight, -2, -2 - (hasScaleBar() ? scaleBarRect().height() + 2 : 0));
    if (m_image.isNull() || area.width() <= 0 || area.height() <= 0) return area;
    const QSize fitted = m_image.size().scaled(area.size(), Qt::KeepAspectRatio);
    return QRect(area.x() + (area.width() - fitted.width()) / 2, area.y() + (area.height() - fitted.height()) / 2,
        fitted.width(), fitted.height());
}

bool PatchMapView::hasScaleBar() const
{
    return m_style.colormap == Colormap::Diverging && m_message.isEmpty() && !m_values.empty();
}

QRect PatchMapView::scaleBarRect() const
{
    const int h = fontMetrics().height();
    return QRect(2, height() - 2 - h, width() - 4, h);
}

QStringList PatchMapView::scaleLabels() const
{
    if (!hasScaleBar()) return {};
    const float scale = signedPatchScale(m_values);
    // U+2212 minus: a hyphen reads as a dash next to the bar.
    return { QStringLiteral("\u2212%1").arg(scale, 0, 'g', 2), QStringLiteral("0"),
        QStringLiteral("+%1").arg(scale, 0, 'g', 2) };
}

QSize PatchMapView::sizeHint() const
{
    return { 320, 340 };
}

QSize PatchMapView::minimumSizeHint() const
{
    return { 80, 90 };
}

void PatchMapView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().window());
    QRect titleRect = rect().adjusted(kTitleMargin, 0, -kTitleMargin, 0);
    for (const QString& line : titleLines()) {
        painter.drawText(titleRect, Qt::AlignTop | Qt::AlignHCenter, line);
        titleRect.setTop(titleRect.top() + fontMetrics().height());
    }
    const QRect target = imageRect();
    if (!m_message.isEmpty() || m_values.empty()) {
        painter.drawText(target, Qt::AlignCenter | Qt::TextWordWrap, m_message);
        return;
    }
    painter.drawImage(target.topLeft(), overlayImage(target.size()));
    const double cellW = static_cast<double>(target.width()) / static_cast<double>(m_grid.cols);
    const double cellH = static_cast<double>(target.height()) / static_cast<double>(m_grid.rows);
    if (m_showGrid && cellW >= 4.0) {
        painter.setPen(QPen(QColor(255, 255, 255, 70), 0));
        for (int64_t c = 1; c < m_grid.cols; ++c)
            painter.drawLine(QPointF(target.x() + c * cellW, target.top()),
                QPointF(target.x() + c * cellW, target.y() + target.height()));
        for (int64_t r = 1; r < m_grid.rows; ++r)
            painter.drawLine(QPointF(target.left(), target.y() + r * cellH),
                QPointF(target.x() + target.width(), target.y() + r * cellH));
    }
    if (hasScaleBar()) paintScaleBar(painter);
    if (m_selected >= 0 && m_selected < m_grid.patches()) {
        painter.setPen(QPen(QColor(255, 40, 40), 2));
        painter.setBrush(Qt::NoBrush);
        const double r = static_cast<double>(m_selected / m_grid.cols);
        const double c = static_cast<double>(m_selected % m_grid.cols);
        painter.drawRect(QRectF(target.x() + c * cellW, target.y() + r * cellH, cellW, cellH));
    }
}

void PatchMapView::paintScaleBar(QPainter& painter) const
{
    // [−max] [blue … white … red] [+max] under the image, the 0 tick at the bar's white middle.
    const QRect row = scaleBarRect();
    const QStringList labels = scaleLabels();
    const int labelWidth
        = std::max(fontMetrics().horizontalAdvance(labels[0]), fontMetrics().horizontalAdvance(labels[2])) + 4;
    const QRect bar = row.adjusted(labelWidth, row.height() / 4, -labelWidth, -row.height() / 4);
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(row, Qt::AlignLeft | Qt::AlignVCenter, labels[0]);
    painter.drawText(row, Qt::AlignRight | Qt::AlignVCenter, labels[2]);
    if (bar.width() <= 0) return;
    QLinearGradient gradient(bar.topLeft(), bar.topRight());
    for (const auto& [t, color] : colormapStops(Colormap::Diverging))
        gradient.setColorAt(t, color);
    painter.fillRect(bar, gradient);
    painter.drawRect(bar.adjusted(0, 0, -1, -1));
    const int middle = bar.center().x();
    painter.drawLine(middle, bar.top() - 2, middle, bar.bottom() + 2);
}

void PatchMapView::mousePressEvent(QMouseEvent* event)
{
    const QRect target = imageRect();
    if (m_values.empty() || !target.contains(event->position().toPoint())) return;
    const QPointF p = event->position() - target.topLeft();
    const auto c = std::clamp<int64_t>(static_cast<int64_t>(p.x() * m_grid.cols / target.width()), 0, m_grid.cols - 1);
    const auto r = std::clamp<int64_t>(static_cast<int64_t>(p.y() * m_grid.rows / target.height()), 0, m_grid.rows - 1);
    emit patchClicked(r * m_grid.cols + c);
}

} // namespace attn::ui
