// SPDX-License-Identifier: MIT
#pragma once
#include "export/figure_export.h"
#include "export/figure_recipe.h"
#include "model/attention_snapshot.h"

#include <QSize>
#include <QString>

namespace attn::ui {

/// Builds the view a recipe names offscreen (the same widgets the GUI shows) from a snapshot and writes it as a
/// figure. Used by the GUI's Export menu and by `attnscope-cli export`, so both give the same file. Needs a
/// QApplication (the offscreen platform is enough). Deterministic: the same inputs give byte-identical PNGs.
class FigureRenderer {
public:
    explicit FigureRenderer(SnapshotPtr snapshot);

    /// The recipe's width/height; where they are 0, the view's natural size for this snapshot.
    QSize figureSize(const FigureRecipe& recipe) const;
    /// Throws Error for a layer, head or token outside the snapshot, an unsupported view or an unwritable file.
    void render(const FigureRecipe& recipe, const QString& path, FigureFormat format) const;
    /// The GUI-thread half of render(): the view built and recorded, to be written by writeFigure() on any thread.
    /// A long input is drawn as the view shows it zoomed out: its heatmap as the overview level whose blocks fit the
    /// plot (each cell the max of its block, the title says the block size).
    RecordedFigure record(const FigureRecipe& recipe, const QString& path, FigureFormat format) const;

private:
    void check(const FigureRecipe& recipe) const;

    SnapshotPtr m_snapshot;
};

} // namespace attn::ui
