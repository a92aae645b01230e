// SPDX-License-Identifier: MIT
// Decode panel measurements on stories260K (not a test; bench/README.md has the numbers):
//  1. capture cost: greedy decoding through DecodeTimeline (attention rows of every layer and head, KV norms, top-k
//     distribution: what the panel gets per step) vs plain Session steps that capture nothing;
//  2. responsiveness: the main window with the Decode tab runs continuously for a few seconds while a 1 ms
//     PreciseTimer records every gap in the GUI event loop; a stall is a gap beyond 1 ms.
// Options: --seconds S (default 5), --run-only (skip part 1, e.g. to profile the GUI thread alone),
// --views none (Run with another tab in front, so none of the Decode tab's views is shown; default: all shown),
// --views both (rounds of --seconds each, the tab in front and not by turns, --rounds N of each; per round the CPU
// time of the engine and GUI threads per step, then their medians: what the views cost, whatever the load),
// --screenshot FILE (the window after 30 greedy steps, 1280x800, then quit).
#include "bench_data.h"
#include "controller/engine_controller.h"
#include "decode/decode_panel.h"
#include "main_window.h"
#include "model/model_loader.h"
#include "session/decode_timeline.h"
#include "session/sampler.h"
#include "session/session.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QPushButton>
#include <QTabWidget>
#include <QTimer>

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

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

/// The engine thread's CPU clock and kernel task id, read on that thread.
struct ThreadIds {
    clockid_t clock {};
    long tid = 0;
};

/// Milliseconds task `tid` of this process has waited on a run queue for a core (/proc schedstat's second field): the
/// share of a round the machine's load, not the views, took from the engine thread.
double runQueueWaitMs(long tid)
{
    std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/schedstat");
    double cpu = 0, wait = 0;
    in >> cpu >> wait;
    return wait / 1e6;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n == 0 ? 0.0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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

/// Rounds of Run with the Decode tab's views shown and hidden by turns, in one process: per round the steps, the wall
/// time and the CPU time of the engine thread (the decoding, and whatever the views ask of it) and of the GUI thread
/// (the views' redraws) per step. CPU per step does not depend on how many other processes share the cores, and
/// alternating rounds puts shown and hidden under the same load, so their medians compare where wall figures cannot.
class Rounds {
public:
    Rounds(ThreadIds engine, int rounds)
        : m_engine(engine)
        , m_rounds(rounds)
    {
    }
    bool shown() const { return m_done.size() % 2 == 0; }
    bool finished() const { return static_cast<int>(m_done.size()) >= 2 * m_rounds; }
    void start(uint64_t steps) { m_start = sample(steps); }
    /// Ends the round at `steps` steps started so far.
    void end(uint64_t steps)
    {
        const Sample now = sample(steps), d = difference(now, m_start);
        std::printf("  round %2zu, views %-6s %6.0f steps/s; per step CPU: engine %5.1f us, GUI %5.1f us; engine "
                    "waited for a core %3.0f %%, idle (no work queued) %3.0f %% of the round; load %.1f\n",
            m_done.size() / 2 + 1, shown() ? "shown:" : "hidden:", d.steps / d.wallMs * 1e3, d.engineMs / d.steps * 1e3,
            d.guiMs / d.steps * 1e3, 100.0 * d.waitMs / d.wallMs,
            100.0 * std::max(0.0, d.wallMs - d.engineMs - d.waitMs) / d.wallMs, loadAverage());
        m_done.push_back(d);
    }
    void report() const
    {
        const auto of = [&](bool views, auto value) {
            std::vector<double> v;
            for (size_t i = views ? 0 : 1; i < m_done.size(); i += 2)
                v.push_back(value(m_done[i]));
            return median(v);
        };
        const auto rate = [](const Sample& d) { return d.steps / d.wallMs * 1e3; };
        const auto engine = [](const Sample& d) { return d.engineMs / d.steps * 1e3; };
        const auto gui = [](const Sample& d) { return d.guiMs / d.steps * 1e3; };
        const auto both = [&](const Sample& d) { return engine(d) + gui(d); };
        std::printf("medians of %d rounds each (us of CPU per step; shown / hidden):\n", m_rounds);
        std::printf("  engine thread          %6.1f  %6.1f  %.3f\n", of(true, engine), of(false, engine),
            of(true, engine) / of(false, engine));
        std::printf("  GUI thread             %6.1f  %6.1f  %.3f\n", of(true, gui), of(false, gui),
            of(true, gui) / of(false, gui));
        std::printf("  both (one shared core) %6.1f  %6.1f  %.3f\n", of(true, both), of(false, both),
            of(true, both) / of(false, both));
        std::printf("  steps/s (wall)         %6.0f  %6.0f  %.3f\n", of(true, rate), of(false, rate),
            of(true, rate) / of(false, rate));
        std::printf("  steps/s on a core per thread, max(engine, GUI) per step: %.0f shown, %.0f hidden (%.3f)\n",
            1e6 / std::max(of(true, engine), of(true, gui)), 1e6 / std::max(of(false, engine), of(false, gui)),
            std::max(of(false, engine), of(false, gui)) / std::max(of(true, engine), of(true, gui)));
    }

private:
    struct Sample {
        double steps = 0, wallMs = 0, engineMs = 0, guiMs = 0, waitMs = 0;
    };
    Sample sample(uint64_t steps) const
    {
        return { static_cast<double>(steps), static_cast<double>(m_clock.nsecsElapsed()) / 1e6, cpuMs(m_engine.clock),
            threadCpuMs(), runQueueWaitMs(m_engine.tid) };
    }
    static Sample difference(const Sample& a, const Sample& b)
    {
        return { a.steps - b.steps, a.wallMs - b.wallMs, a.engineMs - b.engineMs, a.guiMs - b.guiMs,
            a.waitMs - b.waitMs };
    }

    ThreadIds m_engine;
    int m_rounds;
    QElapsedTimer m_clock = [] {
        QElapsedTimer t;
        t.start();
        return t;
    }();
    Sample m_start;
    std::vector<Sample> m_done;
};

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    double runSeconds = 5.0;
    QString screenshot;
    bool runOnly = false;
    bool viewsShown = true, alternate = false;
    int roundsEach = 8;
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) == "--run-only")
            runOnly = true;
        else if (i + 1 >= argc)
            break;
        else if (std::string(argv[i]) == "--seconds")
            runSeconds = std::atof(argv[++i]);
        else if (std::string(argv[i]) == "--screenshot")
            screenshot = argv[++i];
        else if (std::string(argv[i]) == "--rounds")
            roundsEach = std::max(1, std::atoi(argv[++i]));
        else if (std::string(argv[i]) == "--views") {
            const std::string views = argv[++i];
            viewsShown = views != "none";
            alternate = views == "both";
        }
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
    std::unique_ptr<Rounds> rounds; // --views both
    QElapsedTimer roundClock;
    const auto showViews = [&](bool shown) {
        if (shown)
            window.tabs()->setCurrentWidget(panel);
        else
            window.tabs()->setCurrentIndex(0);
    };
    // Restart from the prompt whenever a run ends (the story ends or the context is full) until time is up.
    const auto restart = [&] {
        if (rounds && roundClock.elapsed() > runSeconds * 1000) {
            rounds->end(decode->stepsStarted());
            if (rounds->finished()) {
                rounds->report();
                QApplication::quit();
                return;
            }
            showViews(rounds->shown());
            roundClock.start();
            rounds->start(decode->stepsStarted());
        }
        if (!rounds && clock.elapsed() > runSeconds * 1000) {
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
        showViews(viewsShown);
        panel->stepButton()->click(); // prompt + first step
        if (!screenshot.isEmpty()) {
            panel->runButton()->click();
            return;
        }
        if (alternate) {
            std::printf("Run with the Decode views shown and hidden by turns, %d rounds of %.1f s each:\n",
                2 * roundsEach, runSeconds);
            window.controller()->post<ThreadIds>(
                &window,
                [](attn::EngineContext&) {
                    ThreadIds ids;
                    pthread_getcpuclockid(pthread_self(), &ids.clock);
                    ids.tid = syscall(SYS_gettid);
                    return ids;
                },
                [&](ThreadIds engine) {
                    rounds = std::make_unique<Rounds>(engine, roundsEach);
                    clock.start();
                    roundClock.start();
                    showViews(rounds->shown());
                    rounds->start(decode->stepsStarted());
                    restart();
                },
                [](const QString& message) {
                    std::fprintf(stderr, "engine: %s\n", message.toUtf8().constData());
                    QApplication::exit(1);
                });
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
