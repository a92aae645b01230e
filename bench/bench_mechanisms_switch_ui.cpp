// SPDX-License-Identifier: MIT
// The Mechanisms tab's cost on the GUI thread at a long input (issue 22's < 50 ms goal): the main window runs TOKENS
// one-token words, the tab is shown and its result awaited (the engine's whole request, wall time printed), then the
// tab is switched away from and back to three times, then heads are switched on the Exact vs variant page and on the
// Linear attention page (whose sweeps are the costly part), the last one switched again before its result came (the
// sweep in flight is cancelled). Printed per action: the wall time until done, the process CPU time (every thread),
// the worst event-loop stall and the most GUI-thread CPU between two 2 ms ticks (the column the machine's load does
// not inflate), as bench_stalls_ui does.
// Not a test; see bench/README.md for the figures.
//
// usage: bench_mechanisms_switch_ui MODEL_DIR TEXT_FILE TOKENS   (TEXT_FILE: one-token words, from
//        bench/make_long_context_model.py --text-file)
#include "main_window.h"
#include "mechanisms/linear_page.h"
#include "mechanisms/mechanisms_panel.h"
#include "wait_for_events.h"
#include "widgets/event_loop_stalls.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>
#include <ctime>
#include <functional>

namespace {

double processCpuSeconds()
{
    timespec t {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

} // namespace

int main(int argc, char** argv)
{
    using attn::bench::waitFor;
    QApplication app(argc, argv);
    if (argc < 4) {
        std::fprintf(stderr, "usage: bench_mechanisms_switch_ui MODEL_DIR TEXT_FILE TOKENS\n");
        return 2;
    }
    QFile file(argv[2]);
    if (!file.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "cannot read %s\n", argv[2]);
        return 2;
    }
    const int tokens = QString(argv[3]).toInt();
    const QStringList words = QString::fromUtf8(file.readAll()).split(' ', Qt::SkipEmptyParts);
    attn::ui::MainWindow window;
    window.resize(1280, 800);
    window.show();
    QTabWidget* tabs = window.tabs();
    attn::ui::MechanismsPanel* panel = window.mechanismsPanel();
    window.openModel(QString::fromLocal8Bit(argv[1]));
    if (!waitFor([&] { return window.summary() != nullptr; }, 600000)) return 1;
    window.setInputText(" " + words.mid(0, tokens).join(' '));
    if (!waitFor([&] { return window.snapshot() && window.snapshot()->numKeys() == tokens; }, 1200000)) return 1;
    attn::ui::EventLoopStalls stalls;
    auto measure = [&](const char* what, const std::function<void()>& act, const std::function<bool()>& done) {
        QElapsedTimer wall;
        wall.start();
        const double cpu = processCpuSeconds();
        stalls.start();
        QTimer::singleShot(0, act);
        const bool ok = waitFor(done, 1800000);
        const double worst = stalls.stop();
        std::printf("| %5d | %-52s | %8.1f s | %8.1f s | %9.1f | %9.1f |%s\n", tokens, what,
            static_cast<double>(wall.elapsed()) / 1000.0 - 0.3, processCpuSeconds() - cpu, worst, stalls.worstCpuMs(),
            ok ? "" : " (timed out)");
        std::fflush(stdout);
    };
    std::printf("| tokens | action | until done | process CPU | worst stall (ms) | most GUI-thread CPU between two "
                "ticks (ms) |\n|---:|---|---:|---:|---:|---:|\n");
    bool shown = false;
    QObject::connect(panel, &attn::ui::MechanismsPanel::resultShown, [&shown] { shown = true; });
    panel->setSynthetic(false);
    measure(
        "switch to Mechanisms, its first result", [&] { tabs->setCurrentWidget(panel); }, [&] { return shown; });
    for (int i = 0; i < 3; ++i) {
        measure(
            "switch to Heatmap", [&] { tabs->setCurrentIndex(0); }, [] { return true; });
        measure(
            "switch to Mechanisms (result shown)", [&] { tabs->setCurrentWidget(panel); }, [] { return true; });
    }
    shown = false;
    const attn::HeadInputs& head = panel->result()->inputs; // the next head of the same layer: no model pass
    const int64_t layer = head.layer, heads = head.numHeads;
    int64_t next = head.head;
    auto switchHead = [&] {
        next = (next + 1) % heads;
        panel->setHead(layer, next);
    };
    auto shownNext = [&] { return shown && panel->result()->request.head == next; };
    measure("head switch, Exact vs variant page, its result", switchHead, shownNext);
    shown = false;
    measure(
        "Linear attention page opened, its result", [&] { panel->pages()->setCurrentWidget(panel->linearPage()); },
        [&] { return shown; });
    shown = false;
    measure("head switch, Linear attention page, its result", switchHead, shownNext);
    shown = false;
    bool again = false;
    measure(
        "head switch there, again 0.5 s later, the last result",
        [&] {
            switchHead();
            QTimer::singleShot(500, [&] {
                switchHead();
                again = true;
            });
        },
        [&] { return again && shownNext(); });
    return 0;
}
