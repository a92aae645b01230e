// SPDX-License-Identifier: MIT
#include "widgets/two_line_row.h"

#include <QWidgetItem>

#include <algorithm>

namespace attn::ui {

TwoLineRow::TwoLineRow(QWidget* parent)
    : QLayout(parent)
{
    setContentsMargins(0, 0, 0, 0);
}

TwoLineRow::~TwoLineRow() = default;

void TwoLineRow::setLead(QWidget* lead)
{
    addChildWidget(lead);
    m_lead = std::make_unique<QWidgetItem>(lead);
    invalidate();
}

void TwoLineRow::setTail(QWidget* tail)
{
    addChildWidget(tail);
    m_tail = std::make_unique<QWidgetItem>(tail);
    invalidate();
}

void TwoLineRow::addItem(QLayoutItem* item)
{
    // Only setLead and setTail place parts: an item added otherwise would have no place in the row.
    delete item;
}

QLayoutItem* TwoLineRow::itemAt(int index) const
{
    if (index == 0) return m_lead ? m_lead.get() : m_tail.get();
    if (index == 1 && m_lead) return m_tail.get();
    return nullptr;
}

QLayoutItem* TwoLineRow::takeAt(int index)
{
    QLayoutItem* item = itemAt(index);
    if (!item) return nullptr;
    return (item == m_lead.get() ? m_lead : m_tail).release();
}

int TwoLineRow::count() const
{
    return (m_lead ? 1 : 0) + (m_tail ? 1 : 0);
}

bool TwoLineRow::wraps(int width) const
{
    if (!m_lead || !m_tail || m_tail->isEmpty()) return false;
    const QMargins m = contentsMargins();
    return m_lead->sizeHint().width() + spacing() + m_tail->sizeHint().width() > width - m.left() - m.right();
}

QSize TwoLineRow::sizeHint() const
{
    QSize size;
    for (const QLayoutItem* item : { m_lead.get(), m_tail.get() })
        if (item && !item->isEmpty())
            size = QSize(size.width() + (size.width() > 0 ? spacing() : 0) + item->sizeHint().width(),
                std::max(size.height(), item->sizeHint().height()));
    const QMargins m = contentsMargins();
    return size.grownBy(m);
}

QSize TwoLineRow::minimumSize() const
{
    // As narrow as the wider part: narrower than both side by side, the tail goes under the lead.
    QSize size;
    for (const QLayoutItem* item : { m_lead.get(), m_tail.get() })
        if (item && !item->isEmpty()) size = size.expandedTo(item->minimumSize());
    const QMargins m = contentsMargins();
    return size.grownBy(m);
}

int TwoLineRow::heightForWidth(int width) const
{
    const QMargins m = contentsMargins();
    int lines = 0;
    for (const QLayoutItem* item : { m_lead.get(), m_tail.get() })
        if (item && !item->isEmpty()) lines = std::max(lines, item->sizeHint().height());
    if (wraps(width)) lines = m_lead->sizeHint().height() + spacing() + m_tail->sizeHint().height();
    return lines + m.top() + m.bottom();
}

void TwoLineRow::setGeometry(const QRect& rect)
{
    QLayout::setGeometry(rect);
    const QRect r = contentsRect();
    const bool lead = m_lead && !m_lead->isEmpty(), tail = m_tail && !m_tail->isEmpty();
    const int tailWidth = tail ? std::min(r.width(), m_tail->sizeHint().width()) : 0;
    if (!wraps(rect.width())) {
        const int height = sizeHint().height() - contentsMargins().top() - contentsMargins().bottom();
        if (lead) m_lead->setGeometry(QRect(r.left(), r.top(), r.width() - (tail ? tailWidth + spacing() : 0), height));
        if (tail) m_tail->setGeometry(QRect(r.right() + 1 - tailWidth, r.top(), tailWidth, height));
        return;
    }
    const int leadHeight = m_lead->sizeHint().height();
    m_lead->setGeometry(QRect(r.left(), r.top(), r.width(), leadHeight));
    m_tail->setGeometry(
        QRect(r.right() + 1 - tailWidth, r.top() + leadHeight + spacing(), tailWidth, m_tail->sizeHint().height()));
}

} // namespace attn::ui
