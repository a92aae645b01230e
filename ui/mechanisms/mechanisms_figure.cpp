// SPDX-License-Identifier: MIT
#include "mechanisms/mechanisms_figure.h"

#include "mechanisms/line_plot.h"
#include "plots/heatmap_view.h"

#include <QStackedWidget>
#include <QTableWidget>

#include <qcustomplot.h>

#include <algorithm>

namespace attn::ui {

namespace {

/// A page's panels with something to draw (a map before its first matrix, a curve before its series would only be
/// default axes).
bool hasContent(const QWidget& panel)
{
    if (const auto* map = qobject_cast<const HeatmapView*>(&panel)) return map->snapshot() != nullptr;
    if (const auto* curve = qobject_cast<const LinePlot*>(&panel)) return !curve->series().empty();
    return true;
}

/// Draws `plot` into `cell` through its vector path: laid out at the cell's size, as an export of the plot alone.
void drawPlot(QCustomPlot& plot, QCPPainter& painter, const QRect& cell)
{
    painter.save();
    painter.translate(cell.topLeft());
    painter.setClipRect(QRect(QPoint(0, 0), cell.size()));
    plot.toPainter(&painter, cell.width(), cell.height());
    painter.restore();
}

/// The maps and curves under `widget` in the order the page added them. A tab widget's pages are taken in their tab
/// order: its stack raises the page in front to the end of its children.
void collectPanels(const QObject& widget, QList<QWidget*>& panels)
{
    const auto visit = [&panels](QObject* child) {
        auto* w = qobject_cast<QWidget*>(child);
        if (w && (qobject_cast<HeatmapView*>(w) || qobject_cast<LinePlot*>(w))) {
            if (hasContent(*w)) panels << w;
        } else if (child) {
            collectPanels(*child, panels);
        }
    };
    if (const auto* stack = qobject_cast<const QStackedWidget*>(&widget)) {
        for (int i = 0; i < stack->count(); ++i)
            visit(stack->widget(i));
    } else {
        for (QObject* child : widget.children())
            visit(child);
    }
}

} // namespace

MechanismsFigure::MechanismsFigure(QWidget* parent)
    : QWidget(parent)
{
    hide();
    setAttribute(Qt::WA_DontShowOnScreen);
}

QList<QWidget*> MechanismsFigure::panelsOf(const QWidget& page)
{
    QList<QWidget*> panels;
    collectPanels(page, panels);
    if (panels.isEmpty())
        for (QTableWidget* table : page.findChildren<QTableWidget*>())
            panels << table;
    return panels;
}

QSize MechanismsFigure::figureSize(qsizetype panels)
{
    const int count = static_cast<int>(std::max<qsizetype>(panels, 1));
    const int columns = std::min(count, kColumns);
    const int rows = (count + kColumns - 1) / kColumns;
    return { columns * kPanel.width(), kTitleHeight + rows * kPanel.height() };
}

void MechanismsFigure::setPage(QWidget* page, const QString& title)
{
    m_panels = page ? panelsOf(*page) : QList<QWidget*>();
    m_title = title;
    resize(figureSize(m_panels.size()));
}

void MechanismsFigure::paintEvent(QPaintEvent*)
{
    QCPPainter painter(this);
    painter.setMode(QCPPainter::pmNoCaching); // text as text in SVG and PDF
    painter.fillRect(rect(), Qt::white);
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.drawText(QRect(8, 0, width() - 16, kTitleHeight), Qt::AlignVCenter | Qt::AlignLeft, m_title);
    for (qsizetype i = 0; i < m_panels.size(); ++i) {
        const int column = static_cast<int>(i) % kColumns;
        const int row = static_cast<int>(i) / kColumns;
        const QRect cell(QPoint(column * kPanel.width(), kTitleHeight + row * kPanel.height()), kPanel);
        QWidget* panel = m_panels[i];
        if (auto* map = qobject_cast<HeatmapView*>(panel)) {
            map->layoutPlot(kPanel); // its token labels spaced for the cell, not for the screen
            drawPlot(*map->plot(), painter, cell);
            map->layoutPlot(map->plot()->size());
        } else if (auto* curve = qobject_cast<LinePlot*>(panel)) {
            drawPlot(*curve->plot(), painter, cell);
            curve->plot()->replot(QCustomPlot::rpQueuedReplot); // toPainter left it laid out at the cell's size
        } else {
            // A table: drawn as on screen, at the cell's size for the figure.
            const QRect geometry = panel->geometry();
            panel->resize(kPanel);
            panel->render(&painter, cell.topLeft(), QRegion(), QWidget::DrawChildren);
            panel->setGeometry(geometry);
        }
    }
}

} // namespace attn::ui
