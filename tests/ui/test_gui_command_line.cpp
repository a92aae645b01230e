// SPDX-License-Identifier: MIT
// The GUI's command line: `--screenshots` saves the views once an input has run, so naming a model without an input
// is refused at once (it used to wait for ever for a first run that never came).
#include "support/shared_data.h"

#include <gtest/gtest.h>

#include <QDir>

namespace attn {
namespace {

TEST(GuiCommandLine, ScreenshotsOfANamedModelWithoutAnInputAreRefusedAtOnce)
{
    const std::string shots = test::makeTempDir("no-input-shots");
    std::string output;
    // The watchdog is far above the refusal's time (no model is opened) and far below the test's own limit.
    const int rc = test::runCommand("QT_QPA_PLATFORM=offscreen timeout 60 " + std::string(AS_GUI_PATH) + " "
            + AS_SOURCE_DIR + "/resources/models/demo-stories-llama --screenshots " + shots + " 2>&1",
        &output);
    EXPECT_EQ(rc, 2) << output; // 124 would be the watchdog: the old wait
    EXPECT_NE(output.find("--screenshots with a model needs --input or --input-file"), std::string::npos) << output;
    EXPECT_TRUE(QDir(QString::fromStdString(shots)).isEmpty());
}

} // namespace
} // namespace attn
