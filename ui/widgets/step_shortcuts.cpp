// SPDX-License-Identifier: MIT
#include "widgets/step_shortcuts.h"

#include <QAbstractButton>
#include <QShortcut>

namespace attn::ui {

void addStepShortcuts(QWidget* panel, QAbstractButton* step, QAbstractButton* back, QAbstractButton* run)
{
    for (const auto& [key, button] :
        { std::pair { Qt::Key_Right, step }, std::pair { Qt::Key_Left, back }, std::pair { Qt::Key_Space, run } }) {
        auto* s = new QShortcut(QKeySequence(key), panel);
        s->setContext(Qt::WidgetWithChildrenShortcut);
        QObject::connect(s, &QShortcut::activated, button, &QAbstractButton::click);
    }
}

} // namespace attn::ui
