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
#include <QProgressDialog>
#include <QRegularExpression>
#include <QSettings>
#include <QTabWidget>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cstdio>

namespace attn::ui {

namespace {

/// Every layer's attention of a classified image stacked, token 0 = [CLS], then the patches row-major (as
/// `attnscope-cli attention`).
void writeVisionNpy(const std::string& path, const VisionResult& result)
{
    const std::vector<Tensor> layers = result.layerAttention(); // derived here, on the export worker
    const Shape head = layers.front().shape();
    Tensor all({ static_cast<int64_t>(layers.size()), head[0], head[1], head[2] });
    float* out = all.data();
    for (const Tensor& layer : layers)
        out = std::copy(layer.data(), layer.data() + layer.numel(), out);
    writeNpy(path, all);
}

} // namespace

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
                start(tr("Export figure"), path, [&] { return figureWork(path, dpi); });
            });
    })->setObjectName("actionExportFigure");
    addAction(tr("Current view &data (.npy, .csv)…"), this, [this] {
        run(tr("Export data"), tr("NumPy array, float32 (*.npy);;CSV table (*.csv)"),
            [this](const QString& path) { start(tr("Export data"), path, [&] { return dataWork(path); }); });
    })->setObjectName("actionExportData");
    addAction(tr("View &recipe (.json)…"), this, [this] {
        run(tr("Save view recipe"), tr("View recipe (*.json)"), [this](const QString& path) { exportRecipe(path); });
    })->setObjectName("actionExportRecipe");
    connect(&m_watcher, &QFutureWatcher<ExportOutcome>::finished, this, [this] {
        const ExportOutcome outcome = m_watcher.result();
        if (m_progress) {
            m_progress->hide();
            m_progress->deleteLater();
            m_progress = nullptr;
        }
        if (!m_runningTitle.isEmpty() && !outcome.error.isEmpty())
            QMessageBox::warning(m_window, m_runningTitle, outcome.error);
        emit exportFinished(m_runningPath, outcome.error, outcome.cancelled);
    });
}

ExportMenu::~ExportMenu()
{
    cancelExport();
    m_watcher.waitForFinished();
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

ExportMenu::ExportWork ExportMenu::figureWork(const QString& path, int dpi) const
{
    const FigureFormat format = figureFormatFromPath(path);
    if (m_window->tabs()->currentWidget() == m_window->visionView()) {
        m_window->visionView()->exportFigure(path, format, dpi); // as `attnscope-cli export --view vision` draws it
        return [](const ExportCancel&) { return true; };
    }
    std::shared_ptr<const RecordedFigure> figure;
    FigureRecipe recipe;
    if (currentRecipe(&recipe)) {
        recipe.dpi = dpi;
        figure
            = std::make_shared<const RecordedFigure>(FigureRenderer(m_window->snapshot()).record(recipe, path, format));
    } else {
        QWidget* tab = m_window->tabs()->currentWidget();
        if (!tab) throw Error("export: there is no view to export");
        // Another panel: the figure widget it marks, else its plot when it has exactly one, else the whole panel.
        QWidget* marked = tab->findChild<QWidget*>(kFigureObjectName);
        const QList<QCustomPlot*> plots = tab->findChildren<QCustomPlot*>();
        QWidget& target = marked ? *marked : plots.size() == 1 ? *plots.front() : *tab;
        figure = std::make_shared<const RecordedFigure>(recordWidget(target, path, format, { target.size(), dpi }));
    }
    return [figure, path](const ExportCancel& cancelled) { return writeFigure(*figure, path, cancelled); };
}

ExportMenu::ExportWork ExportMenu::dataWork(const QString& path) const
{
    const std::string file = path.toStdString();
    if (m_window->tabs()->currentWidget() == m_window->visionView()) {
        const VisionResultPtr result = m_window->visionView()->result();
        if (!result) throw Error("export: classify an image first (Vision tab > Open image)");
        if (QFileInfo(path).suffix().toLower() != "npy")
            throw Error(
                "export " + file + ": the vision data is a [layers, heads, tokens, tokens] array; save it as .npy");
        return [result, file](const ExportCancel&) {
            writeVisionNpy(file, *result);
            return true;
        };
    }
    FigureRecipe recipe;
    if (!currentRecipe(&recipe))
        throw Error("export: the data of this view cannot be exported (open a model and show an attention view)");
    const bool csv = QFileInfo(path).suffix().toLower() == "csv";
    return [snapshot = m_window->snapshot(), recipe, file, csv](const ExportCancel& cancelled) {
        if (csv)
            writeFigureCsv(file, *snapshot, recipe);
        else
            writeFigureNpy(file, *snapshot, recipe);
        if (!cancelled || !cancelled()) return true;
        std::remove(file.c_str()); // cancelled while writing: leave no file
        return false;
    };
}

void ExportMenu::exportFigure(const QString& path, int dpi) const
{
    figureWork(path, dpi)({});
}

void ExportMenu::exportData(const QString& path) const
{
    dataWork(path)({});
}

void ExportMenu::startFigureExport(const QString& path, int dpi)
{
    start(QString(), path, [&] { return figureWork(path, dpi); });
}

void ExportMenu::startDataExport(const QString& path)
{
    start(QString(), path, [&] { return dataWork(path); });
}

void ExportMenu::start(const QString& title, const QString& path, const std::function<ExportWork()>& prepare)
{
    if (exportRunning())
        throw Error("export " + path.toStdString() + ": " + m_runningPath.toStdString() + " is still being written");
    ExportWork work = prepare(); // throws before anything runs
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_runningPath = path;
    m_runningTitle = title;
    m_watcher.setFuture(QtConcurrent::run([work = std::move(work), cancel = m_cancel] {
        ExportOutcome outcome;
        try {
            outcome.cancelled = !work([cancel] { return cancel->load(); });
        } catch (const std::exception& e) {
            outcome.error = QString::fromUtf8(e.what());
        }
        return outcome;
    }));
    // Not modal, so the window stays usable; it shows only when the export takes a while.
    m_progress = new QProgressDialog(tr("Writing %1…").arg(QFileInfo(path).fileName()), tr("Cancel"), 0, 0, m_window);
    m_progress->setObjectName("exportProgress");
    m_progress->setWindowTitle(title.isEmpty() ? tr("Export") : title);
    m_progress->setMinimumDuration(400);
    connect(m_progress, &QProgressDialog::canceled, this, &ExportMenu::cancelExport);
    m_progress->setValue(0);
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
        name += QString("_%1_L%2H%3")
                    .arg(QString::fromStdString(figureViewName(recipe.view)))
                    .arg(recipe.layer)
                    .arg(recipe.head);
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
