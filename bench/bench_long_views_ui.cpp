// SPDX-License-Identifier: MIT
// A long input in the main window, as a user meets it (not a test; bench/README.md has the numbers): the time until
// the forward's views arrive, until the first head is drawn in full, until every head of the all-heads grid and the
// statistics is summarized, and what a head switch costs afterwards (the GUI thread's own work, and the time until
// the switched-to head's overview is drawn), with the process's peak RSS. Each milestone also prints the CPU time the
// process (every thread) and the GUI thread had used by then: unlike the wall times, that does not grow with the
// machine's load.
//
// usage: bench_long_views_ui MODEL_DIR TEXT_FILE [--switches N] [--shots DIR]   (bench/long_input_bench.sh writes
// both files). --shots saves the window as the views arrive (heatmap, then the all-heads grid still being
// summarized) and once the first head is drawn: what a user sees while a long input is being derived.
#include "controller/engine_controller.h"
#include "main_window.h"
#include "plots/heatmap_view.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QDir>
#include <QFile>
#include <QTabWidget>
#include <QTimer>

#include <sys/resource.h>

#include <ctime>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

double peakRssMiB()
{
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

/// CPU time of the whole process (every thread: GUI, engine, OpenBLAS) or of the calling thread, in ms.
double cpuMs(clockid_t clock)
{
    timespec t {};
    clock_gettime(clock, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

/// Calls `then` once `view` has drawn what it should show (nothing left to derive), polling every millisecond. The
/// poll only reads isDeriving() and draws once the derivation is in: drawing at every poll (as before 2026-12-02) kept
/// the GUI thread busy replotting the stand-in, a second core's worth of work beside the engine thread's pass on a
/// 2-core machine, which the app itself never does.
void whenDrawn(attn::ui::HeatmapView* view, std::function<void()> then)
{
    if (!view->isDeriving()) {
        view->flushRedraw();
        if (!view->isDeriving()) return then(); // drawing asked for nothing more
    }
    QTimer::singleShot(1, view, [view, then = std::move(then)] { whenDrawn(view, then); });
}

/// "(CPU: process P s, GUI thread G s)" since the start of the run.
std::string cpuSince(double process0, double gui0)
{
    char text[96];
    std::snprintf(text, sizeof text, "(CPU: process %.1f s, GUI thread %.2f s)",
        (cpuMs(CLOCK_PROCESS_CPUTIME_ID) - process0) / 1e3, (cpuMs(CLOCK_THREAD_CPUTIME_ID) - gui0) / 1e3);
    return text;
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s MODEL_DIR TEXT_FILE [--switches N]\n", argv[0]);
        return 2;
    }
    int switches = 12;
    QString shots;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (std::string(argv[i]) == "--switches") switches = std::atoi(argv[i + 1]);
        if (std::string(argv[i]) == "--shots") shots = QString::fromLocal8Bit(argv[i + 1]);
    }

    QFile file(argv[2]);
    if (!file.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "cannot read %s\n", argv[2]);
        return 2;
    }
    const QString text = QString::fromUtf8(file.readAll());

    attn::ui::MainWindow window;
    window.resize(1280, 800);
    window.show();
    attn::ui::HeatmapView* heatmap = window.heatmapView();
    if (!shots.isEmpty()) QDir().mkpath(shots);
    const auto shoot = [&](const char* name) {
        if (!shots.isEmpty()) window.grab().save(QDir(shots).filePath(QString(name) + ".png"));
    };
    QObject::connect(&window, &attn::ui::MainWindow::errorShown, [](const QString& message) {
        std::fprintf(stderr, "error: %s\n", message.toUtf8().constData());
        QApplication::exit(1);
    });
    QElapsedTimer clock;
    double startProcessCpu = 0, startGuiCpu = 0; // at clock.start()
    bool statsDone = false, firstDrawn = false;
    double arrived = 0; // ns on `clock`
    std::vector<double> guiMs, drawnMs;
    double processCpu0 = -1, guiCpu0 = -1;
    std::mt19937 random(7);
    std::function<void(int)> switchHead = [&](int left) {
        if (processCpu0 < 0) {
            processCpu0 = cpuMs(CLOCK_PROCESS_CPUTIME_ID);
            guiCpu0 = cpuMs(CLOCK_THREAD_CPUTIME_ID);
        }
        if (left == 0) {
            const double n = static_cast<double>(guiMs.size());
            std::printf("head switch CPU per switch: whole process %.1f ms, GUI thread %.1f ms\n",
                (cpuMs(CLOCK_PROCESS_CPUTIME_ID) - processCpu0) / n, (cpuMs(CLOCK_THREAD_CPUTIME_ID) - guiCpu0) / n);
            std::sort(guiMs.begin(), guiMs.end());
            std::sort(drawnMs.begin(), drawnMs.end());
            std::printf("head switch (%zu switches): GUI thread median %.1f ms, max %.1f ms; overview drawn median "
                        "%.1f ms, max %.1f ms\n",
                guiMs.size(), guiMs[guiMs.size() / 2], guiMs.back(), drawnMs[drawnMs.size() / 2], drawnMs.back());
            std::printf("peak RSS %.0f MiB\n", peakRssMiB());
            QApplication::quit();
            return;
        }
        const auto snapshot = window.snapshot();
        const int64_t layer = std::uniform_int_distribution<int64_t>(0, snapshot->numLayers() - 1)(random);
        const int64_t head = std::uniform_int_distribution<int64_t>(0, snapshot->numHeads() - 1)(random);
        QElapsedTimer switchClock;
        switchClock.start();
        window.setCurrentHead(layer, head);
        heatmap->flushRedraw(); // the stand-in (the head's thumbnail) is on screen when this returns
        guiMs.push_back(static_cast<double>(switchClock.nsecsElapsed()) / 1e6);
        whenDrawn(heatmap, [&, switchClock, left] {
            drawnMs.push_back(static_cast<double>(switchClock.nsecsElapsed()) / 1e6);
            switchHead(left - 1);
        });
    };
    QObject::connect(&window, &attn::ui::MainWindow::snapshotShown, &window, [&] {
        if (firstDrawn) return;
        std::printf("views arrive (tokenize + forward of %lld tokens) %.1f s %s\n",
            static_cast<long long>(window.snapshot()->numKeys()), static_cast<double>(clock.elapsed()) / 1e3,
            cpuSince(startProcessCpu, startGuiCpu).c_str());
        arrived = static_cast<double>(clock.nsecsElapsed());
        const auto sinceArrival = [&] { return (static_cast<double>(clock.nsecsElapsed()) - arrived) / 1e6; };
        heatmap->flushRedraw();
        std::printf("heatmap stand-in (the head's thumbnail) drawn %.0f ms after the views arrived\n", sinceArrival());
        shoot("arrived-heatmap");
        // The heatmap tab is in front, as after a run: the head in full, then the all-heads grid.
        whenDrawn(heatmap, [&, sinceArrival] {
            firstDrawn = true;
            shoot("first-head-drawn");
            std::printf("first head drawn %.1f s (%.0f ms after the views arrived) %s\n",
                static_cast<double>(clock.elapsed()) / 1e3, sinceArrival(),
                cpuSince(startProcessCpu, startGuiCpu).c_str());
            const double before = sinceArrival();
            window.tabs()->setCurrentIndex(3); // the all-heads grid
            QApplication::processEvents();
            window.tabs()->currentWidget()->repaint(); // its 144 thumbnails drawn
            std::printf("all-heads grid drawn %.0f ms after the views arrived (%.0f ms to show and draw it) %s\n",
                sinceArrival(), sinceArrival() - before, cpuSince(startProcessCpu, startGuiCpu).c_str());
            shoot("arrived-grid");
            window.tabs()->setCurrentIndex(0);
            if (statsDone) switchHead(switches);
        });
    });
    QObject::connect(window.controller(), &attn::ui::EngineController::statsProgress, &window, [&](int done, int total) {
        if (done != total || statsDone) return;
        statsDone = true;
        std::printf("all %d heads summarized (grid, statistics) %.1f s %s\n", total,
            static_cast<double>(clock.elapsed()) / 1e3, cpuSince(startProcessCpu, startGuiCpu).c_str());
        if (firstDrawn) switchHead(switches);
    });
    clock.start();
    startProcessCpu = cpuMs(CLOCK_PROCESS_CPUTIME_ID);
    startGuiCpu = cpuMs(CLOCK_THREAD_CPUTIME_ID);
    window.openPath(QString::fromLocal8Bit(argv[1]));
    window.setInputText(text);
    return app.exec();
}
