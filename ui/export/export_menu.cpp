// SPDX-License-Identifier: MIT
#include "export/export_menu.h"

#include "core/error.h"
#include "core/npy.h"
#include "export/figure_data.h"
#include "export/figure_export.h"
#include "export/figure_renderer.h"
#include "main_window.h"
#include "plots/heatmap_view.h"
#include "vision/vision_view.h"
#include "widgets/head_grid_view.h"
#include "widgets/head_lines_view.h"

#include <qcustomplot.h>

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSettings>
#include <QTabWidget>

#include <algorithm>

namespace attn::ui {

ExportMenu::ExportMenu(MainWindow* window)
    : QMenu(tr("&Export"), window)
    , m_window(window)
{
    setObjectName("exportMenu");
    addAction(tr("Current view as &figure (PNG, SVG, PDF)…"), QKeySequence(Qt::CTRL | Qt::Key_E), this, [this] {
        run(tr("Export figure"), tr("PNG image (*.png);;SVG vector image (*.svg);;PDF document (*.pdf)"),
            [this](const QString& path) {
                int dpi = 96;
                if (figureFormatFromPath(path) == FigureFormat::Png) {
                    bool ok = false;
                    dpi = QInputDialog::getInt(
                        m_window, tr("PNG resolution"), tr("Dots per inch:"), 192, 24, 2400, 24, &ok);
                    if (!ok) return;
                }
                exportFigure(path, dpi);
            });
    })->setObjectName("actionExportFigure");
    addAction(tr("Current view &data (.npy, .csv)…"), this, [this] {
        run(tr("Export data"), tr("NumPy array, float32 (*.npy);;CSV table (*.csv)"),
            [this](const QString& path) { exportData(path); });
    })->setObjectName("actionExportData");
    addAction(tr("View &recipe (.json)…"), this, [this] {
        run(tr("Save view recipe"), tr("View recipe (*.json)"), [this](const QString& path) { exportRecipe(path); });
    })->setObjectName("actionExportRecipe");
}

bool ExportMenu::currentRecipe(FigureRecipe* recipe) const
{
    const SnapshotPtr snapshot = m_window->snapshot();
    QWidget* tab = m_window->tabs()->currentWidget();
    if (!snapshot || !m_window->summary() || !tab) return false;
    FigureRecipe r;
    if (tab == m_window->heatmapView())
        r.view = FigureView::Heatmap;
    else if (tab == m_window->statsView())
        r.view = FigureView::Stats;
    else if (tab->isAncestorOf(m_window->gridView()))
        r.view = FigureView::Grid;
    else if (tab->isAncestorOf(m_window->linesView()))
        r.view = FigureView::HeadView;
    else
        return false;
    r.model = m_window->summary()->path;
    const RunPtr run = m_window->runResult();
    if (run && !run->target.empty()) { // an encoder-decoder: both texts, replayed through the same provider
        r.prompt = m_window->inputText().toStdString();
        r.target = m_window->targetText().toStdString();
        r.attention = m_window->attentionKind();
    } else {
        for (const TokenChip& token : snapshot->tokens())
            r.tokens.push_back(token.id);
        if (run) r.text = run->text;
    }
    const HeatmapView* heatmap = m_window->heatmapView();
    r.layer = heatmap->layer();
    r.head = heatmap->head();
    r.colormap = heatmap->colormap();
    r.options = heatmap->options();
    const std::set<int64_t>& heads = m_window->linesView()->heads();
    r.heads.assign(heads.begin(), heads.end());
    r.selectedToken = m_window->linesView()->selectedToken();
    r.metric = m_window->statsView()->metric();
    // Plots keep their on-screen size; the widget views their natural size (they scroll on screen).
    if (r.view == FigureView::Heatmap || r.view == FigureView::Stats) {
        const QSize size = tab->findChild<QCustomPlot*>()->size();
        r.width = size.width();
        r.height = size.height();
    }
    *recipe = r;
    return true;
}

void ExportMenu::exportFigure(const QString& path, int dpi) const
{
    const FigureFormat format = figureFormatFromPath(path);
    if (m_window->tabs()->currentWidget() == m_window->visionView()) {
        m_window->visionView()->exportFigure(path, format, dpi); // as `attnscope-cli export --view vision` draws it
        return;
    }
    FigureRecipe recipe;
    if (currentRecipe(&recipe)) {
        recipe.dpi = dpi;
        FigureRenderer(m_window->snapshot()).render(recipe, path, format);
        return;
    }
    QWidget* tab = m_window->tabs()->currentWidget();
    if (!tab) throw Error("export: there is no view to export");
    // Another panel: the figure widget it marks, else its plot when it has exactly one, else the whole panel.
    QWidget* figure = tab->findChild<QWidget*>(kFigureObjectName);
    const QList<QCustomPlot*> plots = tab->findChildren<QCustomPlot*>();
    QWidget& target = figure ? *figure : plots.size() == 1 ? *plots.front() : *tab;
    exportWidget(target, path, format, { target.size(), dpi });
}

void ExportMenu::exportData(const QString& path) const
{
    if (m_window->tabs()->currentWidget() == m_window->visionView()) {
        exportVisionData(path);
        return;
    }
    FigureRecipe recipe;
    if (!currentRecipe(&recipe))
        throw Error("export: the data of this view cannot be exported (open a model and show an attention view)");
    const std::string file = path.toStdString();
    if (QFileInfo(path).suffix().toLower() == "csv")
        writeFigureCsv(file, *m_window->snapshot(), recipe);
    else
        writeFigureNpy(file, *m_window->snapshot(), recipe);
}

void ExportMenu::exportVisionData(const QString& path) const
{
    const VisionResultPtr result = m_window->visionView()->result();
    if (!result) throw Error("export: classify an image first (Vision tab > Open image)");
    if (QFileInfo(path).suffix().toLower() != "npy")
        throw Error("export " + path.toStdString() + ": the vision data is a [layers, heads, tokens, tokens] array; save it as .npy");
    // Every layer's attention stacked, token 0 = [CLS], then the patches row-major (as `attnscope-cli attention`).
    const Shape head = result->attention.front().shape();
    Tensor all({ static_cast<int64_t>(result->attention.size()), head[0], head[1], head[2] });
    float* out = all.data();
    for (const Tensor& layer : result->attention)
        out = std::copy(layer.data(), layer.data() + layer.numel(), out);
    writeNpy(path.toStdString(), all);
}

void ExportMenu::exportRecipe(const QString& path) const
{
    if (m_window->tabs()->currentWidget() == m_window->visionView()) {
        const FigureRecipe recipe = m_window->visionView()->figureRecipe();
        if (recipe.image.empty()) throw Error("export: the shown image has no file to name in a recipe");
        writeRecipeFile(path.toStdString(), recipe);
        return;
    }
    FigureRecipe recipe;
    if (!currentRecipe(&recipe))
        throw Error("export: this view has no recipe (open a model and show an attention view)");
    writeRecipeFile(path.toStdString(), recipe);
}

QString ExportMenu::suggestedBaseName() const
{
    QString name = QStringLiteral("export");
    if (const auto summary = m_window->summary()) {
        const QFileInfo model(QString::fromStdString(summary->path));
        name = model.isDir() ? model.fileName() : model.completeBaseName();
    }
    FigureRecipe recipe;
    if (currentRecipe(&recipe))
        name += QString("_%1_L%2H%3").arg(QString::fromStdString(figureViewName(recipe.view))).arg(recipe.layer).arg(recipe.head);
    else if (m_window->tabs()->currentIndex() >= 0)
        name += "_" + m_window->tabs()->tabText(m_window->tabs()->currentIndex()).remove('&').toLower();
    return name.replace(QRegularExpression(R"([^A-Za-z0-9._-]+)"), "-");
}

void ExportMenu::run(const QString& title, const QString& filters, const std::function<void(const QString&)>& write)
{
    QSettings settings;
    const QString folder = settings.value("export/folder", QDir::currentPath()).toString();
    const auto firstSuffix = QRegularExpression(R"(\*\.(\w+))").match(filters);
    const QString suggested = QDir(folder).filePath(
        suggestedBaseName() + (firstSuffix.hasMatch() ? "." + firstSuffix.captured(1) : QString()));
    QString selected;
    QString path = QFileDialog::getSaveFileName(m_window, title, suggested, filters, &selected);
    if (path.isEmpty()) return;
    settings.setValue("export/folder", QFileInfo(path).absolutePath());
    // The filter decides the format when the name has no extension.
    if (QFileInfo(path).suffix().isEmpty()) {
        const auto match = QRegularExpression(R"(\*\.(\w+))").match(selected);
        if (match.hasMatch()) path += "." + match.captured(1);
    }
    try {
        write(path);
    } catch (const std::exception& e) {
        QMessageBox::warning(m_window, title, QString::fromStdString(e.what()));
    }
}

} // namespace attn::ui
