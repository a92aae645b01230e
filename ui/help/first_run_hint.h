// SPDX-License-Identifier: MIT
#pragma once
#include <QFrame>

namespace attn::ui {

/// The first demo a user opens gets a short note on what to try, floating over the window's bottom-right corner (so
/// no layout changes for it) until "Got it" dismisses it for good (remembered in QSettings).
class FirstRunHint : public QFrame {
    Q_OBJECT
public:
    static constexpr const char* kSettingsKey = "hints/demoHintDismissed";

    /// Shows the hint over `window`'s central widget unless it was dismissed before or is already shown.
    static void showOnce(QWidget* window, const QString& demoTitle);
    /// Hides the hint and remembers that.
    void dismiss();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    FirstRunHint(QWidget* over, const QString& demoTitle);
    void place();
};

} // namespace attn::ui
