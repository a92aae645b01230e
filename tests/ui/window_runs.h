// SPDX-License-Identifier: MIT
#pragma once
// Setting up the main window for the tab tests: a model opened and an input run.
#include <QString>

namespace attn::ui {
class MainWindow;
}

namespace attn::test {

/// The bundled demo decoder (demo-stories-llama); an empty string and a test failure when it is missing.
QString demoDecoderPath();

/// Shows `window` at 1280x800, opens `model` and, unless `text` is empty, runs it as the main input. Fatal test
/// failures when the model does not open or the run does not arrive (use ASSERT_NO_FATAL_FAILURE).
void openAndRun(ui::MainWindow& window, const QString& model, const QString& text = {});

} // namespace attn::test
