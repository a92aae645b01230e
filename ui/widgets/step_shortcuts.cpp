// SPDX-License-Identifier: MIT
#include "widgets/step_shortcuts.h"

#include <QAbstractButton>
#include <QCoreApplication>
#include <QShortcut>

#include <tuple>

namespace attn::ui {

void addStepShortcuts(
    QWidget* panel, const QString& tab, QAbstractButton* step, QAbstractButton* back, QAbstractButton* run)
{
    const auto tr = [](const char* text) { return QCoreApplication::translate("StepShortcuts", text); };
    for (const auto& [key, button, what] : { std::tuple { Qt::Key_Right, step, tr("Step") },
             std::tuple { Qt::Key_Left, back, tr("Back") }, std::tuple { Qt::Key_Space, run, tr("Run / Pause") } }) {
        auto* s = new QShortcut(QKeySequence(key), panel);
        s->setContext(Qt::WidgetWithChildrenShortcut);
        s->setWhatsThis(tab + " > " + what); // listed by Help > Keyboard shortcuts
        QObject::connect(s, &QShortcut::activated, button, &QAbstractButton::click);
    }
}

} // namespace attn::ui
