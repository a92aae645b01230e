// SPDX-License-Identifier: MIT
#pragma once
#include <QMainWindow>

class QLabel;
class QPlainTextEdit;

namespace attn::ui {

/// The application window: menus, the model info panel and (later) the attention views.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);

    /// Opens a model folder or file; errors are shown in the window, never thrown.
    void openModel(const QString& path);
    QString lastError() const { return m_lastError; }

private:
    void chooseModel();
    void showError(const QString& message);

    QPlainTextEdit* m_info = nullptr;
    QLabel* m_status = nullptr;
    QString m_lastError;
};

} // namespace attn::ui
