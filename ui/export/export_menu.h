// SPDX-License-Identifier: MIT
#pragma once
#include "export/figure_recipe.h"

#include <QMenu>

namespace attn::ui {

class MainWindow;

/// The main window's Export menu: the current view as a figure (PNG at a chosen DPI, SVG, PDF), its data (.npy, .csv)
/// or its JSON recipe. The attention views are re-rendered offscreen from the recipe, so a GUI export and
/// `attnscope-cli export --recipe` give the same file; any other tab (e.g. the decode panel) goes through
/// exportWidget(). Errors are shown by the window.
class ExportMenu : public QMenu {
    Q_OBJECT
public:
    explicit ExportMenu(MainWindow* window);

    /// What the window shows now as a recipe (input as token ids, so it reproduces exactly); false when the current
    /// tab is not an attention view or no attention has been computed yet.
    bool currentRecipe(FigureRecipe* recipe) const;

    /// The name an export dialog suggests: "<model>_<view>_L<layer>H<head>" for the attention views, "<model>_<tab>"
    /// for other panels ("export" with no model), safe as a file name. The dialog opens in the last folder used.
    QString suggestedBaseName() const;

    /// The file-writing halves of the actions (the dialogs only choose `path`); they throw Error.
    void exportFigure(const QString& path, int dpi) const;
    void exportData(const QString& path) const;
    void exportRecipe(const QString& path) const;
    /// The Vision tab's data: every layer's attention of the classified image, [layers, heads, tokens, tokens].
    void exportVisionData(const QString& path) const;

private:
    void run(const QString& title, const QString& filters, const std::function<void(const QString&)>& write);

    MainWindow* m_window;
};

} // namespace attn::ui
