// SPDX-License-Identifier: MIT
#include "help/first_run_hint.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMainWindow>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>

namespace attn::ui {

void FirstRunHint::showOnce(QWidget* window, const QString& demoTitle)
{
    auto* main = qobject_cast<QMainWindow*>(window);
    if (!main || QSettings().value(kSettingsKey).toBool() || main->findChild<FirstRunHint*>()) return;
    main->statusBar()->addPermanentWidget(new FirstRunHint(demoTitle));
}

FirstRunHint::FirstRunHint(const QString& demoTitle)
{
    setObjectName("firstRunHint");
    setStyleSheet("#firstRunHint { background: #fff8d6; border: 1px solid #d9c36a; border-radius: 3px; }");
    // One line that fits beside the status text at 1024 px; the demo's name and the longer version are the tooltip.
    auto* text = new QLabel(tr("<b>Tip:</b> hover a token to see it in every view · <b>[</b> <b>]</b> step through "
                               "heads · <b>F1</b> explains this view"));
    text->setObjectName("firstRunHintText");
    // Never squeezed by the status text beside it (which elides instead): the tip is read whole or not at all.
    text->setMinimumWidth(text->sizeHint().width());
    setToolTip(tr("<b>%1</b><br>Hover a token (in the chips, the heatmap or the head view) to see it in every view; "
                  "<b>[</b> and <b>]</b> step through heads; the Model view shows every head at once; <b>F1</b> "
                  "explains the view you are looking at.")
                   .arg(demoTitle.toHtmlEscaped()));
    auto* ok = new QPushButton(tr("Got it"));
    ok->setObjectName("firstRunHintDismiss");
    ok->setToolTip(tr("Hide this tip; it will not be shown again"));
    ok->setFlat(true);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 0, 2, 0);
    layout->addWidget(text);
    layout->addWidget(ok);
    connect(ok, &QPushButton::clicked, this, &FirstRunHint::dismiss);
}

void FirstRunHint::dismiss()
{
    QSettings().setValue(kSettingsKey, true);
    hide();
    deleteLater();
}

} // namespace attn::ui
