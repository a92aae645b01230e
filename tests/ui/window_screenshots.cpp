// SPDX-License-Identifier: MIT
#include "window_screenshots.h"

#include <QDir>
#include <QTest>

namespace attn::test {

void saveScreenshots(QWidget& window, const QString& name) {
    const QString dir = qEnvironmentVariable("AS_INTERVENTION_SCREENSHOTS");
    if (dir.isEmpty()) return;
    for (const QSize size : { QSize(1024, 700), QSize(1280, 800) }) {
        window.resize(size);
        QTest::qWait(300); // layouts and coalesced redraws settle
        window.grab().save(QDir(dir).filePath(QString("%1-%2x%3.png").arg(name).arg(size.width()).arg(size.height())));
    }
}

} // namespace attn::test
