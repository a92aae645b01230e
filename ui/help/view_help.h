// SPDX-License-Identifier: MIT
#pragma once
#include <QString>

namespace attn::ui {

/// "What am I looking at" for a view, as HTML: what its axes, colours, masks and scales mean. `view` is the tab's
/// title without mnemonics ("Heatmap", "Head view", ...). Empty for a view that has no page.
QString viewHelpHtml(const QString& view);

} // namespace attn::ui
