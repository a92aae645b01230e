// SPDX-License-Identifier: MIT
#pragma once
#include <QColor>

class QCPGraph;

namespace attn::ui {

/// Styles a line series that is redrawn many times a second (the Decode tab's timeline and KV cache during Run) for
/// how dense its points are on screen: while they are at least a few pixels apart, a 1.5 px line with optional
/// circle markers; once closer, the markers would merge into a band and the 1.5 px stroke is the raster engine's
/// slowest path (together most of the GUI thread's time during Run), so a 1 px cosmetic line without markers, which
/// looks the same at that density.
void fitSeriesToDensity(QCPGraph& graph, const QColor& color, bool markers);

} // namespace attn::ui
