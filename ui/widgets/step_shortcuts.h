// SPDX-License-Identifier: MIT
#pragma once
class QAbstractButton;
class QWidget;

namespace attn::ui {

/// Right clicks `step`, Left `back` and Space `run` anywhere inside `panel` (the stepping tabs: Decode, Caption),
/// except where a text field needs the keys.
void addStepShortcuts(QWidget* panel, QAbstractButton* step, QAbstractButton* back, QAbstractButton* run);

} // namespace attn::ui
