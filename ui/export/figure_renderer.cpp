// SPDX-License-Identifier: MIT
#include "export/figure_renderer.h"

#include "core/error.h"
#include "plots/heatmap_view.h"
#include "plots/stats_view.h"
#include "widgets/head_grid_view.h"
#include "widgets/head_lines_view.h"

#include <qcustomplot.h>

#include <algorithm>
#include <set>

namespace attn::ui {

namespace {

constexpr int kGridCell = 96; // natural thumbnail size of an exported grid

std::set<int64_t> headSet(const FigureRecipe& r)
{
    return r.heads.empty() ? std::set<int64_t> { r.head } : std::set<int64_t>(r.heads.begin(), r.heads.end());
}

// A range check that needs no matrix: a long input's snapshot holds none and is drawn from its source.
void checkHead(const AttentionSnapshot& s, int64_t layer, int64_t head)
{
    if (layer < 0 || layer >= s.numLayers() || head < 0 || head >= s.numHeads())
        throw Error("export: no head " + std::to_string(layer) + "." + std::to_string(head) + " (the model has "
            + std::to_string(s.numLayers()) + " layers x " + std::to_string(s.numHeads()) + " heads)");
}

QSize naturalSize(const SnapshotPtr& snapshot, const FigureRecipe& r, int width)
{
    const AttentionSnapshot& s = *snapshot;
    switch (r.view) {
    case FigureView::Heatmap:
        return QSize(800, 720);
    case FigureView::Stats:
        return QSize(std::max(480, 160 + 48 * static_cast<int>(s.numHeads())),
            std::max(320, 100 + 40 * static_cast<int>(s.numLayers())));
    case FigureView::Grid: {
        HeadGridView grid;
        grid.setSnapshot(snapshot);
        // The grid's cells follow its width; its height follows the cells.
        grid.resize(width > 0 ? width : 40 + static_cast<int>(s.numHeads()) * (kGridCell + 6) + 6, 100);
        return grid.sizeHint().expandedTo(QSize(grid.width(), 0));
    }
    case FigureView::HeadView: {
        HeadLinesView lines;
        lines.setSnapshot(snapshot);
        lines.fitRowsTo(kMaxFigureSide); // a long input's rows get a smaller pitch
        return lines.sizeHint();
    }
    case FigureView::Decode:
    case FigureView::Vision:
    case FigureView::Caption:
        break;
    }
    return {};
}

} // namespace

FigureRenderer::FigureRenderer(SnapshotPtr snapshot)
    : m_snapshot(std::move(snapshot))
{
    if (!m_snapshot) throw Error("export: no attention to draw (run a model first)");
}

QSize FigureRenderer::figureSize(const FigureRecipe& recipe) const
{
    const QSize natural = naturalSize(m_snapshot, recipe, recipe.width);
    return QSize(
        recipe.width > 0 ? recipe.width : natural.width(), recipe.height > 0 ? recipe.height : natural.height());
}

void FigureRenderer::check(const FigureRecipe& r) const
{
    if (r.view == FigureView::Decode)
        throw Error("export: the decode view is not an attention snapshot; it is drawn by renderDecodeFigure");
    if (r.view == FigureView::Vision)
        throw Error("export: the vision view is not a text attention snapshot; it is drawn by renderVisionFigure");
    if (r.view == FigureView::Caption)
        throw Error("export: the caption view is not a text attention snapshot; it is drawn by renderCaptionStrip");
    if (r.view == FigureView::Stats) return;
    checkHead(*m_snapshot, r.layer, r.head);
    if (r.view == FigureView::HeadView) {
        for (int64_t h : headSet(r))
            checkHead(*m_snapshot, r.layer, h);
        if (r.selectedToken < -1 || r.selectedToken >= m_snapshot->numQueries())
            throw Error("export: selected token " + std::to_string(r.selectedToken) + " is outside the "
                + std::to_string(m_snapshot->numQueries()) + " input tokens");
    }
}

void FigureRenderer::render(const FigureRecipe& recipe, const QString& path, FigureFormat format) const
{
    writeFigure(record(recipe, path, format), path);
}

RecordedFigure FigureRenderer::record(const FigureRecipe& recipe, const QString& path, FigureFormat format) const
{
    check(recipe);
    const FigureSize size { figureSize(recipe), recipe.dpi };
    switch (recipe.view) {
    case FigureView::Heatmap: {
        HeatmapView view;
        view.setSnapshot(m_snapshot);
        view.setHead(recipe.layer, recipe.head);
        view.setColormap(recipe.colormap);
        view.setOptions(recipe.options);
        view.layoutPlot(size.logical);
        return recordWidget(*view.plot(), path, format, size);
    }
    case FigureView::Stats: {
        StatsView view;
        view.setSnapshot(m_snapshot);
        view.setMetric(recipe.metric);
        return recordWidget(*view.plot(), path, format, size);
    }
    case FigureView::Grid: {
        HeadGridView view;
        view.setSnapshot(m_snapshot);
        view.setColormap(recipe.colormap);
        view.setCurrent(recipe.layer, recipe.head);
        view.resize(size.logical); // the cells' size follows the width
        // The cells (thumbnails built and drawn, tags) where the figure is written: a worker for the Export menu.
        view.setCellsDeferred(true);
        RecordedFigure figure = recordWidget(view, path, format, size);
        figure.overlay = [cells = view.cells(), area = QRect(QPoint(), size.logical)](
                             QPainter& painter, const ExportCancel& cancelled) {
            QImage thumbnail;
            cells.paint(painter, area, [&](int64_t layer, int64_t head) -> const QImage& {
                thumbnail = HeadGridView::renderThumbnail(*cells.snapshot, layer, head, cells.colormap);
                return thumbnail;
            });
            return !cancelled || !cancelled();
        };
        return figure;
    }
    case FigureView::HeadView: {
        HeadLinesView view;
        view.setSnapshot(m_snapshot);
        view.setLayer(recipe.layer);
        view.setHeads(headSet(recipe));
        view.setSelectedToken(recipe.selectedToken);
        view.fitRowsTo(size.logical.height());
        // The lines, the bulk of the drawing, are drawn where the figure is written (a worker for the Export menu).
        view.setLinesDeferred(true);
        RecordedFigure figure = recordWidget(view, path, format, size);
        figure.overlay = [lines = view.linesRequest(QRectF(QPointF(), QSizeF(size.logical)))](QPainter& painter,
                             const ExportCancel& cancelled) { return drawAttentionLines(painter, lines, cancelled); };
        return figure;
    }
    case FigureView::Decode:
    case FigureView::Vision:
    case FigureView::Caption:
        break;
    }
    throw Error("export: the " + figureViewName(recipe.view) + " view is not drawn from an attention snapshot");
}

} // namespace attn::ui
