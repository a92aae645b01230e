// SPDX-License-Identifier: MIT
#include "demo_models.h"
#include "controller/engine_controller.h"
#include "main_window.h"
#include "plots/heatmap_view.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>

namespace {

// --screenshots DIR: once the first attention is shown, saves one PNG per view tab and quits (docs, CI smoke test).
/// Saves the view tabs [first, last) once the heatmap is drawn (not while a long input's view of it is still being
/// derived on the engine thread), and quits after the last one.
void shoot(attn::ui::MainWindow& window, const QString& dir, int first, int last) {
    QTimer::singleShot(300, &window, [&window, dir, first, last] {
        window.heatmapView()->flushRedraw(); // asks for what it shows, if it is not at hand
        if (window.heatmapView()->isDeriving()) return shoot(window, dir, first, last);
        const char* names[] = { "heatmap", "head-view", "model-view", "all-heads", "statistics" };
        for (int i = first; i < window.tabs()->count() && i < last; ++i) {
            window.tabs()->setCurrentIndex(i);
            window.heatmapView()->flushRedraw();
            QApplication::processEvents(); // lay out the new tab before grabbing (not inside compute)
            const QString path = QDir(dir).filePath(QString("%1.png").arg(names[i]));
            if (!window.grab().save(path)) {
                std::fprintf(stderr, "attnscope: cannot write %s\n", path.toUtf8().constData());
                QApplication::exit(1);
                return;
            }
        }
        if (last == 5) QApplication::quit();
    });
}

void saveScreenshotsWhenReady(attn::ui::MainWindow& window, const QString& dir) {
    QDir().mkpath(dir);
    QObject::connect(&window, &attn::ui::MainWindow::errorShown, &window, [](const QString& message) {
        std::fprintf(stderr, "attnscope: %s\n", message.toUtf8().constData());
        QApplication::exit(1);
    });
    // The heatmap is saved as soon as the first view is on screen (its time is the first-head latency that
    // bench/long_input_bench.sh reports); a long input's grid and statistics once its heads are summarized.
    QObject::connect(
        &window, &attn::ui::MainWindow::snapshotShown, &window,
        [&window, dir] {
            const attn::ui::SnapshotPtr shown = window.snapshot();
            if (!shown || !shown->source() || shown->statsReady(shown->numLayers() - 1, shown->numHeads() - 1))
                return shoot(window, dir, 0, 5);
            shoot(window, dir, 0, 1);
            QObject::connect(window.controller(), &attn::ui::EngineController::statsProgress, &window,
                [&window, dir](int done, int total) {
                    if (done == total) shoot(window, dir, 1, 5);
                });
        },
        Qt::SingleShotConnection);
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("AttnScope");
    QApplication::setOrganizationName("AttnScope");
    QCommandLineParser parser;
    parser.setApplicationDescription("AttnScope: see what every attention head does");
    parser.addHelpOption();
    parser.addPositionalArgument("model", "model folder or file to open");
    const QCommandLineOption input("input", "input text to run", "text");
    const QCommandLineOption inputFile("input-file", "run the text of FILE (UTF-8), e.g. a long document", "file");
    const QCommandLineOption head("head", "layer.head to show first, e.g. 1.2", "layer.head");
    const QCommandLineOption screenshots("screenshots", "save a PNG of each view to DIR, then quit", "dir");
    const QCommandLineOption size("size", "window size, e.g. 1280x800 (screenshots at a known size)", "WxH");
    const QCommandLineOption target("target", "encoder-decoders: the target (decoder) text, teacher-forced", "text");
    parser.addOptions({ input, inputFile, target, head, screenshots, size });
    parser.process(app);
    if (parser.isSet(input) && parser.isSet(inputFile)) {
        std::fprintf(stderr, "attnscope: give either --input or --input-file, not both\n");
        return 2;
    }
    QString inputText = parser.value(input);
    if (parser.isSet(inputFile)) {
        QFile file(parser.value(inputFile));
        if (!file.open(QIODevice::ReadOnly)) {
            std::fprintf(stderr, "attnscope: --input-file %s: %s\n", file.fileName().toUtf8().constData(),
                file.errorString().toUtf8().constData());
            return 2;
        }
        inputText = QString::fromUtf8(file.readAll());
    }

    // The views are saved once an input has run: a named model with no input would wait for ever.
    if (parser.isSet(screenshots) && !parser.positionalArguments().isEmpty() && !parser.isSet(input)
        && !parser.isSet(inputFile)) {
        std::fprintf(stderr, "attnscope: --screenshots with a model needs --input or --input-file\n");
        return 2;
    }

    attn::ui::MainWindow window;
    if (parser.isSet(size)) {
        const QStringList wh = parser.value(size).split('x');
        const int w = wh.value(0).toInt(), h = wh.value(1).toInt();
        if (wh.size() != 2 || w < 200 || h < 200) {
            std::fprintf(stderr, "attnscope: --size expects WxH (at least 200x200), got %s\n",
                parser.value(size).toUtf8().constData());
            return 2;
        }
        window.resize(w, h);
    }
    window.show();
    if (parser.isSet(screenshots)) saveScreenshotsWhenReady(window, parser.value(screenshots));
    if (!parser.positionalArguments().isEmpty()) {
        window.openPath(parser.positionalArguments().first());
    } else {
        if (const auto demos = attn::ui::bundledDemoModels(); !demos.isEmpty())
            window.openDemo(demos.first()); // first launch shows something real, with no download
        window.offerLastWorkspace();
    }
    if (parser.isSet(input) || parser.isSet(inputFile)) window.setInputText(inputText);
    if (parser.isSet(target)) window.setTargetText(parser.value(target));
    if (parser.isSet(head)) {
        const QStringList parts = parser.value(head).split('.');
        window.setCurrentHead(parts.value(0).toLongLong(), parts.value(1).toLongLong());
    }
    return app.exec();
}
