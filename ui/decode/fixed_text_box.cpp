// SPDX-License-Identifier: MIT
#include "decode/fixed_text_box.h"

#include <QLabel>

namespace attn::ui {

FixedTextBox::FixedTextBox(QLabel* label, int lines, QWidget* parent)
    : QWidget(parent)
    , m_label(label)
{
    m_label->setParent(this);
    const QMargins margins = m_label->contentsMargins();
    m_height = lines * m_label->fontMetrics().lineSpacing() + margins.top() + margins.bottom() + 2 * m_label->margin();
    // Any width the layout gives (the text is cut, not the window widened), a height of its own.
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
}

QSize FixedTextBox::sizeHint() const
{
    return { 0, m_height };
}

QSize FixedTextBox::minimumSizeHint() const
{
    return sizeHint();
}

void FixedTextBox::resizeEvent(QResizeEvent*)
{
    m_label->setGeometry(rect());
}

} // namespace attn::ui
