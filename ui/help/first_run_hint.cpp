// SPDX-License-Identifier: MIT
#include "help/first_run_hint.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QMainWindow>
#include <QPushButton>
#include <QSettings>

namespace attn::ui {

namespace {
constexpr int kMargin = 12;
constexpr int kWidth = 360;
}

void FirstRunHint::showOnce(QWidget* window, const QString& demoTitle)
{
    auto* main = qobject_cast<QMainWindow*>(window);
    QWidget* over = main && main->centralWidget() ? main->centralWidget() : window;
    if (QSettings().value(kSettingsKey).toBool() || over->findChild<FirstRunHint*>()) return;
    auto* hint = new FirstRunHint(over, demoTitle);
    hint->show();
    hint->raise();
}

FirstRunHint::FirstRunHint(QWidget* over, const QString& demoTitle)
    : QFrame(over)
{
    setObjectName("firstRunHint");
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    setStyleSheet("#firstRunHint { background: #fff8d6; border: 1px solid #d9c36a; border-radius: 4px; }");
    auto* text = new QLabel(tr("<b>%1</b><br>Hover a token (in the chips, the heatmap or the head view) to see it in "
                               "every view; <b>[</b> and <b>]</b> step through heads; the Model view shows every "
                               "head at once; <b>F1</b> explains the view you are looking at.")
                                .arg(demoTitle.toHtmlEscaped()));
    text->setWordWrap(true);
    auto* ok = new QPushButton(tr("Got it"));
    ok->setObjectName("firstRunHintDismiss");
    ok->setToolTip(tr("Hide this hint; it will not be shown again"));
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(text, 1);
    layout->addWidget(ok, 0, Qt::AlignBottom);
    connect(ok, &QPushButton::clicked, this, &FirstRunHint::dismiss);
    over->installEventFilter(this);
    place();
}

void FirstRunHint::dismiss()
{
    QSettings().setValue(kSettingsKey, true);
    hide();
    deleteLater();
}

void FirstRunHint::place()
{
    const QWidget* over = parentWidget();
    const int width = std::min(kWidth, over->width() - 2 * kMargin);
    const int height = heightForWidth(width) > 0 ? heightForWidth(width) : sizeHint().height();
    setGeometry(over->width() - width - kMargin, over->height() - height - kMargin, width, height);
}

bool FirstRunHint::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == parentWidget() && event->type() == QEvent::Resize) place();
    return QFrame::eventFilter(watched, event);
}

} // namespace attn::ui
