// SPDX-License-Identifier: MIT
#include "widgets/backend_menu.h"

#include <QActionGroup>
#include <QSettings>

namespace attn::ui {

namespace {
const char* kBackendKey = "engine/backend";

BackendChoice savedChoice() {
    try {
        return parseBackendChoice(QSettings().value(kBackendKey, "auto").toString().toStdString());
    } catch (const Error&) {
        return BackendChoice::Auto; // a hand-edited or future value: the default is always safe
    }
}
} // namespace

BackendMenu::BackendMenu(QWidget* parent)
    : QMenu(tr("Compute &backend"), parent)
    , m_group(new QActionGroup(this))
    , m_choice(savedChoice()) {
    setObjectName("backendMenu");
    const std::pair<BackendChoice, QString> entries[] = {
        { BackendChoice::Auto, tr("&Auto (Vulkan when a device exists)") },
        { BackendChoice::Cpu, tr("&CPU") },
        { BackendChoice::Vulkan, tr("&Vulkan") },
    };
    for (const auto& [choice, label] : entries) {
        QAction* action = addAction(label);
        action->setObjectName(QStringLiteral("backend-%1").arg(backendChoiceName(choice)));
        action->setCheckable(true);
        action->setChecked(choice == m_choice);
        m_group->addAction(action);
        connect(action, &QAction::triggered, this, [this, choice = choice] { choose(choice); });
    }
}

void BackendMenu::choose(BackendChoice choice) {
    const QString name = QStringLiteral("backend-%1").arg(backendChoiceName(choice));
    for (QAction* action : m_group->actions())
        if (action->objectName() == name) action->setChecked(true);
    if (choice == m_choice) return;
    m_choice = choice;
    QSettings().setValue(kBackendKey, QString(backendChoiceName(choice)));
    emit choiceChanged(choice);
}

} // namespace attn::ui
