// SPDX-License-Identifier: MIT
// GoogleTest main for the UI tests: a QApplication on the offscreen platform, so tests run without a display.
#include <QApplication>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    // Recent-model lists written by tests must not land in a user's real settings.
    QCoreApplication::setOrganizationName("AttnScopeTests");
    QCoreApplication::setApplicationName("ui_tests");
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
