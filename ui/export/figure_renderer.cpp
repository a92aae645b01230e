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
    m_snapshot->head(r.layer, r.head); // throws for a layer or head outside the model
    if (r.view == FigureView::HeadView) {
        for (int64_t h : headSet(r))
            m_snapshot->head(r.layer, h);
        if (r.selectedToken < -1 || r.selectedToken >= m_snapshot->numQueries())
            throw Error("export: selected token " + std::to_string(r.selectedToken) + " is outside the "
                + std::to_string(m_snapshot->numQueries()) + " input tokens");
    }
}

void FigureRenderer::render(const FigureRecipe& recipe, const QString& path, FigureFormat format) const
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
        exportWidget(*view.plot(), path, format, size);
        return;
    }
    case FigureView::Stats: {
        StatsView view;
        view.setSnapshot(m_snapshot);
        view.setMetric(recipe.metric);
        exportWidget(*view.plot(), path, format, size);
        return;
    }
    case FigureView::Grid: {
        HeadGridView view;
        view.setSnapshot(m_snapshot);
        view.setColormap(recipe.colormap);
        view.setCurrent(recipe.layer, recipe.head);
        exportWidget(view, path, format, size);
        return;
    }
    case FigureView::HeadView: {
        HeadLinesView view;
        view.setSnapshot(m_snapshot);
        view.setLayer(recipe.layer);
        view.setHeads(headSet(recipe));
        view.setSelectedToken(recipe.selectedToken);
        exportWidget(view, path, format, size);
        return;
    }
    case FigureView::Decode:
    case FigureView::Vision:
    case FigureView::Caption:
        break;
    }
}

} // namespace attn::ui
