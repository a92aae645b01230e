// SPDX-License-Identifier: MIT
#pragma once
// View > Compute backend: auto | cpu | vulkan, remembered across runs (QSettings "engine/backend").
#include "backend/backend_registry.h"

#include <QMenu>

class QActionGroup;

namespace attn::ui {

class BackendMenu : public QMenu {
    Q_OBJECT
public:
    /// Checks the saved choice (auto when unset or unreadable).
    explicit BackendMenu(QWidget* parent = nullptr);

    BackendChoice choice() const { return m_choice; }
    /// Checks `choice`, saves it and emits choiceChanged() when it differs from the current one.
    void choose(BackendChoice choice);

signals:
    void choiceChanged(attn::BackendChoice choice);

private:
    QActionGroup* m_group = nullptr;
    BackendChoice m_choice = BackendChoice::Auto;
};

} // namespace attn::ui
