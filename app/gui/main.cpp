// SPDX-License-Identifier: MIT
#include "main_window.h"

#include <QApplication>
#include <QCommandLineParser>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName("AttnScope");
    QApplication::setOrganizationName("AttnScope");
    QCommandLineParser parser;
    parser.setApplicationDescription("AttnScope: see what every attention head does");
    parser.addHelpOption();
    parser.addPositionalArgument("model", "model folder or file to open");
    parser.process(app);

    attn::ui::MainWindow window;
    window.show();
    if (!parser.positionalArguments().isEmpty())
        window.openModel(parser.positionalArguments().first());
    return app.exec();
}
