// SPDX-License-Identifier: MIT
#include "mechanisms_test_support.h"

#include "main_window.h"
#include "mechanisms/mechanisms_panel.h"
#include "plots/heatmap_view.h"
#include "support/shared_data.h"

#include <QPixmap>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

#include <gtest/gtest.h>

#include <cmath>
#include <iterator>

namespace attn::test {

using ui::HeatmapMatrix;
using ui::HeatmapView;
using ui::MechanismsPanel;
using ui::MechanismsPtr;

void showStoriesHeadOnTheTab(ui::MainWindow& window)
{
    window.resize(1280, 800);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    QSignalSpy shown(&window, &ui::MainWindow::snapshotShown);
    window.openModel(QString::fromStdString(sharedPath("models/stories260K/stories260K.bin")));
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, kMechanismsTimeoutMs);
    window.setInputText("Once upon a time, there was a little girl named Lily. She liked to play.");
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1, kMechanismsTimeoutMs);
    MechanismsPanel& panel = *window.mechanismsPanel();
    window.tabs()->setCurrentWidget(&panel);
    panel.setSynthetic(false);
    panel.setHead(2, 5);
    ASSERT_NE(computeAndWait(panel, "window:4"), nullptr); // every page's part
}

MechanismsPtr computeAndWait(MechanismsPanel& panel, const QString& variant)
{
    QSignalSpy shown(&panel, &MechanismsPanel::resultShown);
    panel.setVariant(variant);
    panel.computeEveryPage();
    EXPECT_TRUE(shown.wait(kMechanismsTimeoutMs)) << panel.status().toStdString();
    return panel.result();
}

void expectViewShows(HeatmapView& view, const Mat& expected)
{
    view.flushRedraw();
    const HeatmapMatrix& m = view.matrix();
    ASSERT_EQ(m.rows, expected.rows());
    ASSERT_EQ(m.cols, expected.cols());
    int shown = 0;
    for (int64_t i = 0; i < m.rows; ++i)
        for (int64_t j = 0; j < m.cols; ++j)
            if (!std::isnan(m.at(i, j))) {
                EXPECT_EQ(m.at(i, j), static_cast<double>(static_cast<float>(expected(i, j)))) << i << "," << j;
                ++shown;
            }
    EXPECT_GT(shown, 0);
}

void expectViewNear(HeatmapView& view, const Tensor& expected, double tolerance)
{
    view.flushRedraw();
    const HeatmapMatrix& m = view.matrix();
    ASSERT_EQ(expected.rank(), 2);
    ASSERT_EQ(m.rows, expected.dim(0));
    ASSERT_EQ(m.cols, expected.dim(1));
    int shown = 0;
    for (int64_t i = 0; i < m.rows; ++i)
        for (int64_t j = 0; j < m.cols; ++j)
            if (!std::isnan(m.at(i, j))) {
                EXPECT_NEAR(m.at(i, j), expected.at({ i, j }), tolerance) << i << "," << j;
                ++shown;
            }
    EXPECT_GT(shown, 0);
}

void grabPages(QWidget& window, MechanismsPanel& panel, const QString& dir, QSize size, const QString& prefix)
{
    const char* names[] = { "compare", "scale", "linear", "flash", "gqa", "positions", "entropy" };
    ASSERT_EQ(panel.pages()->count(), static_cast<int>(std::size(names)));
    window.resize(size);
    for (int p = 0; p < panel.pages()->count(); ++p) {
        panel.pages()->setCurrentIndex(p);
        // A page the last result did not compute asks for its part when opened, greyed until it comes.
        QTRY_VERIFY_WITH_TIMEOUT(panel.pages()->currentWidget()->isEnabled(), kMechanismsTimeoutMs);
        QTest::qWait(400);
        const QString path = QStringLiteral("%1/%2-%3-%4.png").arg(dir, prefix, names[p]).arg(size.width());
        const QPixmap shot = window.grab();
        EXPECT_EQ(shot.size(), size) << "the layout must fit " << size.width() << "x" << size.height();
        EXPECT_TRUE(shot.save(path)) << path.toStdString();
    }
}

} // namespace attn::test
