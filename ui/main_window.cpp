// SPDX-License-Identifier: MIT
#include "main_window.h"

#include "core/error.h"
#include "model/model_source.h"

#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QFontDatabase>
#include <QLabel>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QStatusBar>

namespace attn::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
{
    setWindowTitle(tr("AttnScope"));
    resize(1280, 800);

    auto* fileMenu = menuBar()->addMenu(tr("&File"));
    auto* open = fileMenu->addAction(tr("&Open model…"), this, &MainWindow::chooseModel);
    open->setShortcut(QKeySequence::Open);
    open->setObjectName("actionOpenModel");
    fileMenu->addSeparator();
    auto* quit = fileMenu->addAction(tr("&Quit"), qApp, &QApplication::quit);
    quit->setShortcut(QKeySequence::Quit);

    m_info = new QPlainTextEdit(this);
    m_info->setReadOnly(true);
    m_info->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_info->setPlaceholderText(tr("Open a model (File > Open model…) to see its description."));
    setCentralWidget(m_info);

    m_status = new QLabel(this);
    statusBar()->addWidget(m_status, 1);
}

void MainWindow::chooseModel()
{
    const QString path = QFileDialog::getExistingDirectory(this, tr("Open model folder"));
    if (!path.isEmpty())
        openModel(path);
}

void MainWindow::openModel(const QString& path)
{
    const auto probed = capture([&] { return probeModel(path.toStdString()); });
    if (!probed) {
        showError(QString::fromStdString(probed.error()));
        return;
    }
    m_lastError.clear();
    m_info->setPlainText(QString::fromStdString(probed->config.toJson()));
    m_status->setText(tr("Opened %1").arg(path));
}

void MainWindow::showError(const QString& message)
{
    m_lastError = message;
    m_status->setText(tr("Error: %1").arg(message));
}

} // namespace attn::ui
