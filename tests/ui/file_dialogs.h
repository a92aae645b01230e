// SPDX-License-Identifier: MIT
#pragma once
#include <QString>

#include <functional>

class QFileDialog;

namespace attn::test {

/// What the next modal file dialog offered when it opened: its folder and the file name in its name field.
struct OfferedFile {
    QString folder;
    QString name;
};

/// Answers the next file dialog the app opens (QFileDialog::get*FileName run modally from a menu action): records
/// what it offered in `offered`, then chooses `path` (empty: cancels). Call it right before triggering the action.
void answerNextFileDialog(OfferedFile* offered, const QString& path);

} // namespace attn::test
