// SPDX-License-Identifier: MIT
#include "mechanisms/mechanisms_export.h"

#include "core/error.h"
#include "export/figure_data.h"
#include "mechanisms/line_plot.h"
#include "plots/heatmap_view.h"

#include <QDir>
#include <QTabWidget>

#include <fstream>

namespace attn::ui {

namespace {

/// One file name per panel: a title met twice on a page gets its index appended.
QString uniqueName(QStringList& used, const QString& name)
{
    QString out = name;
    for (int n = 2; used.contains(out); ++n)
        out = name + "-" + QString::number(n);
    used << out;
    return out;
}

void writePlotCsv(const std::string& path, const LinePlot& plot)
{
    std::ofstream out(path);
    out << "series,x,y\n";
    out.precision(9);
    for (const PlotSeries& s : plot.series()) {
        QString name = s.name;
        name.replace('"', "\"\"");
        for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
            out << '"' << name.toStdString() << "\"," << s.x[i] << ',' << s.y[i] << '\n';
    }
    if (!out) throw Error("export " + path + ": cannot write the CSV file");
}

} // namespace

QString fileStem(const QString& text)
{
    QString out;
    for (const QChar c : text) {
        if (c.isLetterOrNumber() && c.unicode() < 128)
            out += c.toLower();
        else if (!out.endsWith('-'))
            out += '-';
    }
    while (out.endsWith('-'))
        out.chop(1);
    while (out.startsWith('-'))
        out.remove(0, 1);
    return out.isEmpty() ? QStringLiteral("panel") : out;
}

QStringList exportMechanismsData(const QTabWidget& pages, const QString& dir)
{
    if (!QDir().mkpath(dir)) throw Error("export " + dir.toStdString() + ": cannot create the folder");
    QStringList written;
    for (int p = 0; p < pages.count(); ++p) {
        const QString page = "mechanisms_" + fileStem(pages.tabText(p)) + "_";
        QStringList used;
        auto path = [&](const QString& title, const char* suffix) {
            return QDir(dir).filePath(page + title + suffix).toStdString();
        };
        for (const HeatmapView* view : pages.widget(p)->findChildren<HeatmapView*>()) {
            if (!view->snapshot()) continue;
            const QString title = uniqueName(used, fileStem(view->caption().title));
            FigureRecipe recipe; // the view's one matrix: layer 0, head 0 of its snapshot
            writeFigureNpy(path(title, ".npy"), *view->snapshot(), recipe);
            writeFigureCsv(path(title, ".csv"), *view->snapshot(), recipe);
            written << QString::fromStdString(path(title, ".npy")) << QString::fromStdString(path(title, ".csv"));
        }
        for (const LinePlot* plot : pages.widget(p)->findChildren<LinePlot*>()) {
            if (plot->series().empty()) continue;
            const QString title = uniqueName(used, fileStem(plot->title()));
            writePlotCsv(path(title, ".csv"), *plot);
            written << QString::fromStdString(path(title, ".csv"));
        }
    }
    return written;
}

} // namespace attn::ui
