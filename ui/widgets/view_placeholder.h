// SPDX-License-Identifier: MIT
#pragma once
// What a view with no attention to show says in its place, until the main window says what is missing.
#include <QObject>
#include <QString>

namespace attn::ui {

inline QString noAttentionYet()
{
    return QObject::tr("No attention yet: open a model and type an input");
}

} // namespace attn::ui
