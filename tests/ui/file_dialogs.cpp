// SPDX-License-Identifier: MIT
#include "file_dialogs.h"

#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QTimer>

namespace attn::test {

void answerNextFileDialog(OfferedFile* offered, const QString& path)
{
    // The dialog runs its own event loop inside the action: a timer looks for it from there. The name is typed into
    // the name field: selectFile() leaves a focused field as it is, and the dialog then took its folder as the answer.
    auto* timer = new QTimer(qApp);
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, timer, [timer, offered, path] {
        auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
        if (!dialog || !dialog->isVisible()) return;
        timer->stop();
        timer->deleteLater();
        offered->folder = QFileInfo(dialog->directory().absolutePath()).canonicalFilePath();
        auto* field = dialog->findChild<QLineEdit*>("fileNameEdit");
        offered->name = field ? field->text() : QString();
        if (path.isEmpty() || !field) return dialog->reject();
        dialog->setDirectory(QFileInfo(path).absolutePath());
        field->setText(QFileInfo(path).fileName());
        static_cast<QDialog*>(dialog)->accept(); // (QFileDialog makes its override protected)
    });
    timer->start();
}

} // namespace attn::test
