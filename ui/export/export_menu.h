// SPDX-License-Identifier: MIT
#pragma once
#include "export/figure_export.h"
#include "export/figure_recipe.h"

#include <QFutureWatcher>
#include <QMenu>

#include <atomic>
#include <functional>
#include <memory>

class QProgressDialog;

namespace attn::ui {

class MainWindow;

/// The main window's Export menu: the current view as a figure (PNG at a chosen DPI, SVG, PDF), its data (.npy, .csv)
/// or its JSON recipe. The attention views are re-rendered offscreen from the recipe, so a GUI export and
/// `attnscope-cli export --recipe` give the same file; any other tab (e.g. the decode panel) goes through
/// exportWidget(). The menu's actions write on a worker thread with a progress dialog and a Cancel button: only what
/// needs the widgets (building and recording the figure) runs on the GUI thread. Errors are shown by the window.
/// How a started export ended; `error` is empty when the file was written or the export cancelled.
struct ExportOutcome {
    QString error;
    bool cancelled = false;
};

class ExportMenu : public QMenu {
    Q_OBJECT
public:
    /// The slow half of an export, safe on any thread: draws, encodes and writes; false when cancelled.
    using ExportWork = std::function<bool(const ExportCancel& cancelled)>;

    explicit ExportMenu(MainWindow* window);
    ~ExportMenu() override;

    /// What the window shows now as a recipe (input as token ids, so it reproduces exactly); false when the current
    /// tab is not an attention view or no attention has been computed yet.
    bool currentRecipe(FigureRecipe* recipe) const;

    /// The name an export dialog suggests: "<model>_<view>_L<layer>H<head>" for the attention views, "<model>_<tab>"
    /// for other panels ("export" with no model), safe as a file name. The dialog opens in the last folder used.
    QString suggestedBaseName() const;

    /// The file-writing halves of the actions (the dialogs only choose `path`), synchronous; they throw Error.
    void exportFigure(const QString& path, int dpi) const;
    void exportData(const QString& path) const;
    /// The same, with the writing on a worker: returns at once (after recording a figure); exportFinished() follows.
    /// One export at a time: a second start while one runs fails with a message.
    void startFigureExport(const QString& path, int dpi);
    void startDataExport(const QString& path);
    /// An export started by the methods above has not finished yet.
    bool exportRunning() const { return m_watcher.isRunning(); }
    /// Asks the running export to stop; exportFinished() reports it as cancelled.
    void cancelExport() { m_cancel->store(true); }
    void exportRecipe(const QString& path) const;

signals:
    /// A started export is done: `error` is empty when the file was written or the export `cancelled`.
    void exportFinished(const QString& path, const QString& error, bool cancelled);

private:
    /// Records the current figure now (GUI thread) and returns the rest; throws Error.
    ExportWork figureWork(const QString& path, int dpi) const;
    ExportWork dataWork(const QString& path) const;
    void start(const QString& title, const QString& path, const std::function<ExportWork()>& prepare);
    void run(const QString& title, const QString& filters, const std::function<void(const QString&)>& write);

    MainWindow* m_window;
    QFutureWatcher<ExportOutcome> m_watcher; ///< the running export
    std::shared_ptr<std::atomic<bool>> m_cancel = std::make_shared<std::atomic<bool>>(false);
    QProgressDialog* m_progress = nullptr;
    QString m_runningPath;
    QString m_runningTitle;
};

} // namespace attn::ui
