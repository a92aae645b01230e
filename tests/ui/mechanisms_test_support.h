// SPDX-License-Identifier: MIT
#pragma once
// What the Mechanisms tab's GUI tests share: asking the tab for a variant and reading what a heatmap draws.
#include "core/tensor.h"
#include "mechanisms/head_inputs.h"
#include "mechanisms/mechanisms_request.h"

#include <QSize>
#include <QString>

class QWidget;

namespace attn::ui {
class HeatmapView;
class MainWindow;
class MechanismsPanel;
} // namespace attn::ui

namespace attn::test {

inline constexpr int kMechanismsTimeoutMs = 60000;

/// Shows `window` at 1280x800 with stories260K run on a short story, the Mechanisms tab in front on layer 2 head 5,
/// and waits for window:4 on every page.
void showStoriesHeadOnTheTab(ui::MainWindow& window);

/// Asks the panel for `variant` on every page and waits for its answer (null, with a failure, when none comes).
ui::MechanismsPtr computeAndWait(ui::MechanismsPanel& panel, const QString& variant);

/// The view draws `expected` (rounded to float32, as the snapshot holds it) in every cell its mask shows.
void expectViewShows(ui::HeatmapView& view, const Mat& expected);

/// The view draws a [rows, cols] float32 array (an .npy of attnscope-cli) within `tolerance` in every cell it shows.
void expectViewNear(ui::HeatmapView& view, const Tensor& expected, double tolerance);

/// Every page of `panel` grabbed at `size` as DIR/PREFIX-<page>-<width>.png (the window must keep that size).
void grabPages(QWidget& window, ui::MechanismsPanel& panel, const QString& dir, QSize size, const QString& prefix);

} // namespace attn::test
