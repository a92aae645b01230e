// SPDX-License-Identifier: MIT
// GUI responsiveness probe (issue 22; not a test, bench/README.md has the numbers): the worst event-loop stall of
// each thing a user does on a long input: opening the model and running the input, switching to every view tab,
// decoding (Run for a few seconds from a prompt of that length) and exporting figures and data the way the Export menu
// does (recorded on the GUI thread, written on a worker). A 2 ms precise timer records the gaps; a stall is the
// longest gap from the action until the tab has drawn (the head view's worker lines included; for the Mechanisms,
// Intervene, Logit lens, Compare and Head atlas tabs, the result they compute when shown) or the export's file is
// written, and settled.
// Usage: bench_stalls_ui --model DIR --text FILE [--tokens 512,2048] [--decode-seconds 3] [--decode-only 1]
//        [--only WORD]
// (--decode-only 1: after running the input, only the Decode tab's rows: switching to it, prompt and Run; --only WORD:
// of the tab switches, only the tabs whose name holds WORD, and no decode or export rows: for a profiler)
// FILE holds one-token words (bench/make_long_context_model.py --text-file), so N words are N tokens.
#include "atlas/atlas_panel.h"
#include "decode/decode_controller.h"
#include "decode/decode_panel.h"
#include "export/export_menu.h"
#include "intervention/compare_panel.h"
#include "intervention/intervention_panel.h"
#include "intervention/logit_lens_panel.h"
#include "main_window.h"
#include "mechanisms/mechanisms_panel.h"
#include "plots/heatmap_view.h"
#include "wait_for_events.h"
#include "widgets/event_loop_stalls.h"
#include "widgets/head_grid_view.h"
#include "widgets/head_lines_view.h"

#include <QApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QPushButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>
#include <functional>
#include <memory>

namespace {

using attn::bench::waitFor;
using attn::ui::MainWindow;

struct Probe {
    attn::ui::EventLoopStalls stalls;
    int tokens = 0;

    /// `act` is posted into the event loop (so that its own time counts as a stall), then waits for `done`.
    void measure(
        const char* what, const std::function<void()>& act, const std::function<bool()>& done, int timeoutMs = 600000)
    {
        stalls.start();
        QTimer::singleShot(0, act);
        const bool ok = waitFor(done, timeoutMs);
        const double wall = stalls.stop();
        std::printf(
            "| %5d | %-34s | %9.1f | %9.1f |%s\n", tokens, what, wall, stalls.worstCpuMs(), ok ? "" : " (timed out)");
        std::fflush(stdout);
    }
};

/// Whether `tab` is a `Panel`; if so `shown` is set once it emits `signal` (its next result reached its views).
template <class Panel> bool setWhenShown(QWidget* tab, void (Panel::*signal)(), const std::shared_ptr<bool>& shown)
{
    auto* panel = qobject_cast<Panel*>(tab);
    if (panel)
        QObject::connect(
            panel, signal, panel, [shown] { *shown = true; }, Qt::SingleShotConnection);
    return panel != nullptr;
}

/// Until `tab` has shown the result it computes when shown (Mechanisms, Intervene, Logit lens, Compare, Head atlas),
/// from when this is called: a condition for Probe::measure, so that the result's arrival counts for its own tab, not
/// the next one (Compare's result landed in the Head atlas row, the atlas's in the Pruning row). Other tabs are done
/// once drawn.
std::function<bool()> resultShownBy(QWidget* tab)
{
    using namespace attn::ui;
    auto shown = std::make_shared<bool>(false);
    if (!setWhenShown(tab, &MechanismsPanel::resultShown, shown)
        && !setWhenShown(tab, &InterventionPanel::resultShown, shown)
        && !setWhenShown(tab, &LogitLensPanel::resultShown, shown) && !setWhenShown(tab, &ComparePanel::compared, shown)
        && !setWhenShown(tab, &AtlasPanel::mapShown, shown))
        *shown = true;
    return [shown] { return *shown; };
}

QString firstWords(const QString& text, int count)
{
    const QStringList words = text.split(' ', Qt::SkipEmptyParts);
    return " " + words.mid(0, count).join(' ');
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QString modelDir, textPath;
    QList<int> sizes { 512, 2048 };
    double decodeSeconds = 3.0;
    bool decodeOnly = false;
    QString only;
    for (int i = 1; i + 1 < argc; i += 2) {
        const QString flag = argv[i], value = argv[i + 1];
        if (flag == "--model")
            modelDir = value;
        else if (flag == "--text")
            textPath = value;
        else if (flag == "--decode-only")
            decodeOnly = value.toInt() != 0;
        else if (flag == "--only")
            only = value;
        else if (flag == "--decode-seconds")
            decodeSeconds = value.toDouble();
        else if (flag == "--tokens") {
            sizes.clear();
            for (const QString& s : value.split(','))
                sizes.append(s.toInt());
        }
    }
    QFile file(textPath);
    if (modelDir.isEmpty() || !file.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "usage: bench_stalls_ui --model DIR --text FILE [--tokens 512,2048]\n");
        return 2;
    }
    const QString text = QString::fromUtf8(file.readAll());
    QTemporaryDir exports;

    MainWindow window;
    window.resize(1280, 800);
    window.show();
    QTabWidget* tabs = window.tabs();
    attn::ui::DecodePanel* decode = window.decodePanel();
    auto* exportMenu = window.findChild<attn::ui::ExportMenu*>("exportMenu");
    Probe probe;
    std::printf("| tokens | action | worst stall (ms) | most GUI-thread CPU between two ticks (ms) |\n"
                "|---:|---|---:|---:|\n");
    for (int n : sizes) {
        probe.tokens = n;
        const QString input = firstWords(text, n);
        const auto shown = [&window, n] { return window.snapshot() && window.snapshot()->numKeys() == n; };
        tabs->setCurrentIndex(0);
        if (!window.summary())
            probe.measure(
                "open model", [&] { window.openModel(modelDir); }, [&] { return window.summary() != nullptr; });
        probe.measure(
            "run input (Heatmap tab)", [&] { window.setInputText(input); }, shown);
        for (int i = 1; i < tabs->count() && !decodeOnly; ++i) {
            const QString tab = tabs->tabText(i).remove('&');
            if (!tabs->isTabEnabled(i) || tabs->widget(i) == decode || !tab.contains(only)) continue;
            const bool lines = tabs->widget(i)->isAncestorOf(window.linesView());
            const auto result = resultShownBy(tabs->widget(i));
            probe.measure(("switch to " + tab).toUtf8().constData(), [tabs, i] { tabs->setCurrentIndex(i); },
                [&] { return (!lines || window.linesView()->linesReady()) && result(); }, 300000);
        }
        if (!only.isEmpty()) continue;
        probe.measure(
            "switch to Decode", [&] { tabs->setCurrentWidget(decode); }, [] { return true; });
        attn::ui::DecodeController* controller = decode->controller();
        // A prompt of n - 64 tokens, then Run until decodeSeconds have passed (the context holds n + 128 positions).
        decode->setPromptText(firstWords(text, n - 64));
        bool prompted = false;
        const auto connection = QObject::connect(
            controller, &attn::ui::DecodeController::timelineChanged, [&prompted] { prompted = true; });
        // Until the tab's heatmap shows the whole prompt (its overview derived and drawn), not just the timeline.
        probe.measure(
            "decode: prompt", [&] { decode->findChild<QPushButton*>("promptButton")->click(); },
            [&] {
                return prompted && decode->heatmapPositions() == static_cast<int64_t>(controller->steps().size())
                    && !decode->heatmap()->isDeriving();
            });
        QObject::disconnect(connection);
        QDeadlineTimer runFor;
        probe.measure(
            "decode: Run",
            [&] {
                runFor = QDeadlineTimer(static_cast<qint64>(decodeSeconds * 1000));
                decode->runButton()->click();
            },
            [&] {
                if (!runFor.hasExpired()) return false;
                controller->pause();
                return !controller->running();
            });
        // What each attention view exports: its figure as PNG; the heatmap also as SVG, PDF and its data.
        const std::vector<std::pair<QWidget*, QStringList>> exportsOf { { window.heatmapView(),
                                                                            { "png", "svg", "pdf", "npy", "csv" } },
            { window.linesView(), { "png" } }, { window.gridView(), { "png" } } };
        int exported = 0;
        for (const auto& [view, formats] : exportsOf) {
            if (decodeOnly) break;
            for (int i = 0; i < tabs->count(); ++i)
                if (tabs->widget(i) == view || tabs->widget(i)->isAncestorOf(view)) tabs->setCurrentIndex(i);
            waitFor([&] { return tabs->currentWidget() != view || window.linesView()->linesReady(); }, 60000);
            const QString tab = tabs->tabText(tabs->currentIndex()).remove('&');
            for (const QString& format : formats) {
                const QString path
                    = QDir(exports.path()).filePath(QString("%1-%2.%3").arg(n).arg(exported++).arg(format));
                QString failure;
                bool finished = false;
                const auto done = QObject::connect(
                    exportMenu, &attn::ui::ExportMenu::exportFinished, [&](const QString&, const QString& error, bool) {
                        failure = error;
                        finished = true;
                    });
                const bool data = format == "npy" || format == "csv";
                probe.measure(
                    QString("export %1 of %2").arg(format.toUpper(), tab).toUtf8().constData(),
                    [&] {
                        try {
                            if (data)
                                exportMenu->startDataExport(path);
                            else
                                exportMenu->startFigureExport(path, 96);
                        } catch (const std::exception& e) {
                            failure = QString::fromUtf8(e.what()); // the window would show it; the probe says so
                            finished = true;
                        }
                    },
                    [&] { return finished; });
                QObject::disconnect(done);
                if (!failure.isEmpty())
                    std::printf("|       | (the export failed: %s) | | |\n", failure.toUtf8().constData());
            }
        }
    }
    return 0;
}
