// SPDX-License-Identifier: MIT
// GoogleTest main for the UI tests: a QApplication on the offscreen platform, so tests run without a display.
#include <QApplication>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

#include <cstdio>

namespace {

// QVERIFY/QCOMPARE/QTRY_* outside QTest::qExec only mark QTest's failed flag and return from the test body, which
// GoogleTest would count as a pass. The flag is sticky, so the first test that sets it is the one reported; ctest
// runs each test in its own process, where that is exact.
class QtTestFailureListener : public ::testing::EmptyTestEventListener {
public:
    bool anyFailed() const { return m_failed; }

private:
    void OnTestEnd(const ::testing::TestInfo& test) override
    {
        if (m_failed || !QTest::currentTestFailed()) return;
        m_failed = true;
        std::fprintf(stderr,
            "[  FAILED  ] %s.%s: a QVERIFY/QCOMPARE/QTRY_* check failed (the test returned at that check)\n",
            test.test_suite_name(), test.name());
    }

    bool m_failed = false;
};

} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    // Recent-model lists written by tests must not land in a user's real settings.
    QCoreApplication::setOrganizationName("AttnScopeTests");
    QCoreApplication::setApplicationName("ui_tests");
    // Nor in another run's: each process starts from no settings, as on a fresh machine. One shared file carried the
    // backend choice, recent lists, export folder and first-run hint from run to run (and across checkouts), so a
    // test saw different state as the first test of a process than after others had written there.
    const QTemporaryDir settings;
    for (const QSettings::Format format : { QSettings::NativeFormat, QSettings::IniFormat })
        QSettings::setPath(format, QSettings::UserScope, settings.path());
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    auto* listener = new QtTestFailureListener; // owned by GoogleTest's listener list
    ::testing::UnitTest::GetInstance()->listeners().Append(listener);
    const int result = RUN_ALL_TESTS();
    return listener->anyFailed() ? 1 : result;
}
