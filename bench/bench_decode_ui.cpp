// SPDX-License-Identifier: MIT
// Decode panel measurements on stories260K (not a test; bench/README.md has the numbers):
//  1. capture cost: greedy decoding through DecodeTimeline (attention rows of every layer and head, KV norms, top-k
//     distribution: what the panel gets per step) vs plain Session steps that capture nothing;
//  2. responsiveness: the main window with the Decode tab runs continuously for a few seconds while a 1 ms
//     PreciseTimer records every gap in the GUI event loop; a stall is a gap beyond 1 ms.
// Options: --seconds S (default 5), --run-only (skip part 1, e.g. to profile the GUI thread alone),
// --views none (Run with another tab in front, so none of the Decode tab's views is shown; default: all shown),
// --screenshot FILE (the window after 30 greedy steps, 1280x800, then quit).
#include "bench_data.h"
#include "session/decode_timeline.h"
#include "decode/decode_panel.h"
#include "main_window.h"
#include "model/model_loader.h"
#include "session/sampler.h"
#include "session/session.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QPushButton>
#include <QTabWidget>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace {

double seconds(std::chrono::steady_clock::time_point since)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

/// Best of `repeats` runs of greedy decoding to `positions` positions: plain Session vs DecodeTimeline.
void captureCost(int positions, int repeats)
{
    const std::string path = stories260K();
    const auto model = attn::loadModel(path);
    attn::ForwardOptions plainOptions;
    plainOptions.wantAttention = false;
    attn::Session plain(model, plainOptions);
    plain.reserve(positions);
    const auto timeline = attn::openDecodeTimeline(path);
    attn::DecodeTimeline& engine = *timeline;
    double bestPlain = 1e30, bestDecode = 1e30;
    int64_t plainSteps = 0, decodeSteps = 0;
    for (int r = 0; r < repeats; ++r) {
        // Alternating the two keeps background load from favouring one of them.
        auto start = std::chrono::steady_clock::now();
        plain.reset();
        int64_t token = 1;
        for (plainSteps = 0; plainSteps < positions; ++plainSteps) {
            const auto s = plain.step(token);
            token = attn::argmax(s->logits.data(), s->logits.numel());
            if (token == 1) break;
        }
        bestPlain = std::min(bestPlain, seconds(start));

        start = std::chrono::steady_clock::now();
        engine.prompt({ 1 });
        while (engine.length() < positions && engine.step()) { }
        decodeSteps = engine.length();
        bestDecode = std::min(bestDecode, seconds(start));
    }
    std::printf("capture cost, best of %d, greedy from BOS:\n", repeats);
    std::printf("  plain Session (no attention):        %lld positions in %.2f ms (%.1f us/step)\n",
        static_cast<long long>(plainSteps), bestPlain * 1e3, bestPlain * 1e6 / static_cast<double>(plainSteps));
    std::printf("  DecodeTimeline (rows, norms, top-10):  %lld positions in %.2f ms (%.1f us/step)\n",
        static_cast<long long>(decodeSteps), bestDecode * 1e3, bestDecode * 1e6 / static_cast<double>(decodeSteps));
    std::printf("  overhead per step: %+.1f %%\n",
        100.0
            * ((bestDecode / static_cast<double>(decodeSteps)) / (bestPlain / static_cast<double>(plainSteps)) - 1.0));
}

/// CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID) or of the whole process, in ms.
double cpuMs(clockid_t clock)
{
    timespec t {};
    clock_gettime(clock, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

double threadCpuMs()
{
    return cpuMs(CLOCK_THREAD_CPUTIME_ID);
}

double loadAverage()
{
    double load[1] = { 0.0 };
    return getloadavg(load, 1) == 1 ? load[0] : -1.0;
}

/// Records the gaps between 1 ms timer ticks while the panel decodes: in wall time (what the user feels, which on a
/// shared machine includes waiting for a core) and in the GUI thread's own CPU time (the work done between two
/// ticks, which does not depend on the machine's load).
class StallDetector : public QObject {
public:
    StallDetector()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(1);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            const qint64 now = m_clock.nsecsElapsed();
            const double cpu = threadCpuMs();
            if (m_last > 0) {
                m_gaps.push_back(static_cast<double>(now - m_last) / 1e6);
                m_cpuGaps.push_back(cpu - m_lastCpu);
            }
            m_last = now;
            m_lastCpu = cpu;
        });
    }
    void start()
    {
        m_clock.start();
        m_last = 0;
        m_gaps.clear();
        m_cpuGaps.clear();
        m_timer.start();
    }
    void stop() { m_timer.stop(); }
    void report()
    {
        print("event-loop gaps, wall (1 ms timer)", m_gaps);
        print("GUI-thread CPU between ticks", m_cpuGaps);
    }

private:
    static void print(const char* what, std::vector<double>& v)
    {
        std::sort(v.begin(), v.end());
        const auto at = [&](double q) { return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1))]; };
        std::printf("  %s: %zu ticks, median %.2f ms, p99 %.2f ms, max %.2f ms\n", what, v.size(), at(0.5),
            at(0.99), v.back());
    }

    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    double m_lastCpu = 0.0;
    std::vector<double> m_gaps;
    std::vector<double> m_cpuGaps;
};

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    double runSeconds = 5.0;
    QString screenshot;
    bool runOnly = false;
    bool viewsShown = true;
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) == "--run-only")
            runOnly = true;
        else if (i + 1 >= argc)
            break;
        else if (std::string(argv[i]) == "--seconds")
            runSeconds = std::atof(argv[++i]);
        else if (std::string(argv[i]) == "--screenshot")
            screenshot = argv[++i];
        else if (std::string(argv[i]) == "--views")
            viewsShown = std::string(argv[++i]) != "none";
    }
    if (screenshot.isEmpty() && !runOnly) captureCost(256, 20);

    attn::ui::MainWindow window;
    window.resize(1280, 800);
    window.show();
    attn::ui::DecodePanel* panel = window.decodePanel();
    attn::ui::DecodeController* decode = panel->controller();
    window.tabs()->setCurrentWidget(panel);
    QObject::connect(panel, &attn::ui::DecodePanel::errorShown, [](const QString& message) {
        std::fprintf(stderr, "decode: %s\n", message.toUtf8().constData());
        QApplication::exit(1);
    });
    panel->setPromptText("Once upon a time");
    StallDetector stalls;
    QElapsedTimer clock;
    // CPU time at the start of the timed part: the GUI thread's own and the process's (the engine thread's is most
    // of the rest), which unlike wall time does not depend on how loaded the machine is.
    double guiCpuStart = 0.0, processCpuStart = 0.0, loadStart = 0.0;
    int64_t decoded = 0;
    int runs = 0;
    // Time between a Run click and the end of that run: steps per second within runs leave out the GUI round trips
    // that restart a run (stories260K reaches the end of its text ~10 times a second).
    QElapsedTimer runClock;
    qint64 runningNs = 0;
    // Restart from the prompt whenever a run ends (the story ends or the context is full) until time is up.
    const auto restart = [&] {
        if (clock.elapsed() > runSeconds * 1000) {
            stalls.stop();
            std::printf("responsiveness during Run, Decode views %s (%d runs, %lld steps in %.1f s: %.0f steps/s):\n",
                viewsShown ? "shown" : "hidden", runs, static_cast<long long>(decoded),
                static_cast<double>(clock.elapsed()) / 1e3,
                static_cast<double>(decoded) * 1e3 / static_cast<double>(clock.elapsed()));
            std::printf("  within runs: %.0f steps/s (running %.2f s of %.1f s)\n",
                static_cast<double>(decoded) * 1e9 / static_cast<double>(std::max<qint64>(runningNs, 1)),
                static_cast<double>(runningNs) / 1e9, static_cast<double>(clock.elapsed()) / 1e3);
            const double gui = threadCpuMs() - guiCpuStart;
            const double process = cpuMs(CLOCK_PROCESS_CPUTIME_ID) - processCpuStart;
            std::printf("  CPU: GUI thread %.0f ms (%.0f ms per s), rest of the process %.0f ms (%.1f us per step); "
                        "load average %.1f -> %.1f\n",
                gui, gui * 1e3 / static_cast<double>(clock.elapsed()), process - gui,
                (process - gui) * 1e3 / static_cast<double>(std::max<int64_t>(decoded, 1)), loadStart, loadAverage());
            stalls.report();
            QApplication::quit();
            return;
        }
        ++runs;
        runClock.start();
        panel->runButton()->click();
    };
    quint64 startedBefore = 0;
    QObject::connect(decode, &attn::ui::DecodeController::timelineChanged, [&](qint64) {
        decoded = static_cast<int64_t>(decode->stepsStarted() - startedBefore); // a Run answer may bring many steps
        if (!screenshot.isEmpty() && decode->steps().size() == 36 && decode->running()) {
            decode->pause();
            panel->setHead(1, 2);
            QTimer::singleShot(500, &window, [&] {
                panel->flushRedraw();
                window.grab().save(screenshot);
                QApplication::quit();
            });
        }
    });
    QObject::connect(decode, &attn::ui::DecodeController::opened, [&] {
        // Once the model is open (opening it may bring another tab to the front): the Decode tab, or the main
        // heatmap, which hides the Decode tab's views.
        if (viewsShown)
            window.tabs()->setCurrentWidget(panel);
        else
            window.tabs()->setCurrentIndex(0);
        panel->stepButton()->click(); // prompt + first step
        if (!screenshot.isEmpty()) {
            panel->runButton()->click();
            return;
        }
        clock.start();
        guiCpuStart = threadCpuMs();
        processCpuStart = cpuMs(CLOCK_PROCESS_CPUTIME_ID);
        loadStart = loadAverage();
        stalls.start();
        startedBefore = decode->stepsStarted();
        restart();
    });
    QObject::connect(decode, &attn::ui::DecodeController::runningChanged, [&](bool running) {
        if (!running && runClock.isValid()) runningNs += runClock.nsecsElapsed();
        if (!running && screenshot.isEmpty() && clock.isValid()) {
            // Back to the prompt, so that every run decodes as far as the story goes (rewinding a few tokens made
            // the round trips of the rewinds, not the steps, what a run measured once the context was nearly full).
            panel->findChild<QPushButton*>("promptButton")->click();
            QTimer::singleShot(0, &window, restart);
        }
    });
    window.openModel(QString::fromStdString(stories260K()));
    return app.exec();
}
