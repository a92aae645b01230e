// SPDX-License-Identifier: MIT
#pragma once
class QAbstractButton;
class QString;
class QWidget;

namespace attn::ui {

/// Right clicks `step`, Left `back` and Space `run` anywhere inside `panel` (the stepping tabs: Decode, Caption),
/// except where a text field needs the keys. `tab` names them in Help > Keyboard shortcuts ("Decode > Step").
void addStepShortcuts(
    QWidget* panel, const QString& tab, QAbstractButton* step, QAbstractButton* back, QAbstractButton* run);

} // namespace attn::ui
