// SPDX-License-Identifier: MIT
#pragma once
// A label whose size does not follow its text. QLabel::setText asks every layout up to the window to be worked out
// again (the label's size may have changed): with the Decode tab's status and KV texts changing at every redraw
// during Run, that was a fifth of the GUI thread's time (QLayout::activate, down every tab's pages). Here the label
// is the only child of a box of fixed height that places it itself, so a new text only repaints the label.
#include <QWidget>

class QLabel;

namespace attn::ui {

class FixedTextBox : public QWidget {
public:
    /// Takes `label` as its child; `lines`: how many lines of text tall the box is (a wrapped text shows that many).
    FixedTextBox(QLabel* label, int lines, QWidget* parent = nullptr);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    QLabel* m_label;
    int m_height;
};

} // namespace attn::ui
