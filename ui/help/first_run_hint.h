// SPDX-License-Identifier: MIT
#pragma once
#include <QFrame>

namespace attn::ui {

/// The first demo a user opens gets a short note on what to try, in the status bar (where it covers no plot, even at
/// 1024×700) until "Got it" dismisses it for good (remembered in QSettings).
class FirstRunHint : public QFrame {
    Q_OBJECT
public:
    static constexpr const char* kSettingsKey = "hints/demoHintDismissed";

    /// Shows the hint in `window`'s status bar unless it was dismissed before or is already shown.
    static void showOnce(QWidget* window, const QString& demoTitle);
    /// Hides the hint and remembers that.
    void dismiss();

private:
    explicit FirstRunHint(const QString& demoTitle);
};

} // namespace attn::ui
