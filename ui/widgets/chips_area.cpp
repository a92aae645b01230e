// SPDX-License-Identifier: MIT
#include "widgets/chips_area.h"

#include "widgets/token_chips_view.h"

#include <QEvent>

#include <algorithm>

namespace attn::ui {

ChipsArea::ChipsArea(TokenChipsView* chips, int minRows, double share, QWidget* parent)
    : QScrollArea(parent)
    , m_chips(chips)
    , m_minRows(minRows)
    , m_share(share)
{
    setWidget(chips);
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // New tokens ask for another height with updateGeometry(), which reaches the viewport as a layout request.
    viewport()->installEventFilter(this);
    fit();
}

bool ChipsArea::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == viewport() && event->type() == QEvent::LayoutRequest) fit();
    return QScrollArea::eventFilter(watched, event);
}

void ChipsArea::resizeEvent(QResizeEvent* event)
{
    QScrollArea::resizeEvent(event);
    fit(); // another width wraps the chips into other rows
}

void ChipsArea::setWindowHeight(int height)
{
    if (height == m_windowHeight) return;
    m_windowHeight = height;
    fit();
}

int ChipsArea::maxRows() const
{
    const double room = m_share * m_windowHeight;
    int rows = m_minRows;
    while (m_chips->rowsHeight(rows + 1) <= room)
        ++rows;
    return rows;
}

void ChipsArea::fit()
{
    const int needed = m_chips->heightForWidth(viewport()->width());
    const int height
        = std::clamp(needed, m_chips->minimumSizeHint().height(), m_chips->rowsHeight(maxRows())) + 2 * frameWidth();
    if (height != minimumHeight() || height != maximumHeight()) setFixedHeight(height);
}

} // namespace attn::ui
