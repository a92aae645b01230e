// SPDX-License-Identifier: MIT
#include "widgets/token_chips_view.h"

#include "model/token_text.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace attn::ui {

namespace {
constexpr int kPad = 4; // inside a chip, left and right
constexpr int kGap = 4; // between chips
constexpr int kLineGap = 3;
const QColor kPlain(0xd8, 0xe6, 0xf7), kPlainText(0x10, 0x32, 0x5a);
const QColor kSpecial(0xf4, 0xc2, 0x7a), kSpecialText(0x5a, 0x33, 0x00);
} // namespace

TokenChipsView::TokenChipsView(QWidget* parent)
    : QWidget(parent)
{
    setObjectName("tokenChips");
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    QSizePolicy policy = sizePolicy();
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
}

void TokenChipsView::setTokens(const std::vector<TokenChip>& tokens)
{
    m_tokens = tokens;
    m_tokenized = true;
    m_special
        = static_cast<int>(std::count_if(tokens.begin(), tokens.end(), [](const TokenChip& t) { return t.special; }));
    m_first = m_maxShown > 0 && count() > m_maxShown ? count() - m_maxShown : 0;
    m_widths.clear();
    m_rectsWidth = -1;
    updateGeometry();
    update();
}

void TokenChipsView::setLink(TokenLink* link, Side side)
{
    m_link = link;
    m_side = side;
    connect(link, &TokenLink::hoveredChanged, this, qOverload<>(&QWidget::update));
}

QString TokenChipsView::label(int slot) const
{
    if (m_tokens.empty()) return m_tokenized ? tr("(no tokens)") : tr("Tokens appear here as you type.");
    if (m_first > 0 && slot == 0) return tr("… %n earlier token(s)", nullptr, m_first);
    return displayToken(m_tokens[static_cast<size_t>(m_first + slot - (m_first > 0 ? 1 : 0))]);
}

const std::vector<int>& TokenChipsView::chipWidths() const
{
    if (m_widths.empty()) {
        const QFontMetrics fm = fontMetrics();
        const int slotCount = m_tokens.empty() ? 1 : shownCount() + (m_first > 0 ? 1 : 0);
        m_widths.reserve(static_cast<size_t>(slotCount));
        // +2: horizontalAdvance rounds, and a text a fraction wider than its chip would be elided
        for (int s = 0; s < slotCount; ++s)
            m_widths.push_back(fm.horizontalAdvance(label(s)) + 2 * kPad + 2);
    }
    return m_widths;
}

int TokenChipsView::rowsHeight(int rows) const
{
    return rows * (fontMetrics().height() + 4) + (rows - 1) * kLineGap;
}

int TokenChipsView::layoutChips(int width, std::vector<QRect>* rects) const
{
    const int h = rowsHeight(1);
    const std::vector<int>& widths = chipWidths();
    const int slotCount = static_cast<int>(widths.size());
    if (rects) rects->assign(static_cast<size_t>(slotCount), QRect());
    int x = 0, y = 0;
    for (int s = 0; s < slotCount; ++s) {
        const int w = std::min(std::max(1, width), widths[static_cast<size_t>(s)]);
        if (x > 0 && x + w > width) {
            x = 0;
            y += h + kLineGap;
        }
        if (rects) (*rects)[static_cast<size_t>(s)] = QRect(x, y, w, h);
        x += w + kGap;
    }
    return y + h;
}

int TokenChipsView::heightForWidth(int width) const
{
    return layoutChips(width, nullptr);
}

QSize TokenChipsView::sizeHint() const
{
    // At the width it has once laid out: a scroll area around it asks for no more height than the chips take.
    const int w = width() > 100 ? width() : 400;
    return QSize(w, heightForWidth(w));
}

void TokenChipsView::resizeEvent(QResizeEvent*)
{
    if (heightForWidth(width()) != height()) updateGeometry();
}

QSize TokenChipsView::minimumSizeHint() const
{
    return QSize(40, fontMetrics().height() + 4);
}

const std::vector<QRect>& TokenChipsView::rects() const
{
    if (m_rectsWidth != width()) {
        layoutChips(width(), &m_rects);
        m_rectsWidth = width();
    }
    return m_rects;
}

QRect TokenChipsView::chipRect(int index) const
{
    const int slot = index - m_first + (m_first > 0 ? 1 : 0);
    if (m_tokens.empty() || index < m_first || index >= count()) return {};
    return rects()[static_cast<size_t>(slot)];
}

bool TokenChipsView::isHighlighted(int index) const
{
    if (!m_link) return false;
    const LinkedTokens h = m_link->hovered();
    if (m_side == Side::Target) return m_link->cross() && index == h.query;
    return index == h.key || (!m_link->cross() && index == h.query);
}

int TokenChipsView::chipAt(const QPoint& pos) const
{
    for (int i = m_first; i < count(); ++i)
        if (chipRect(i).contains(pos)) return i;
    return -1;
}

void TokenChipsView::paintEvent(QPaintEvent* event)
{
    QPainter p(this);
    if (m_tokens.empty() || m_first > 0) {
        QFont italic = font();
        italic.setItalic(true);
        p.setFont(italic);
        p.setPen(palette().text().color());
        p.drawText(rects().front().adjusted(kPad, 0, 0, 0), Qt::AlignVCenter, label(0));
        p.setFont(font());
    }
    for (int i = m_first; i < count(); ++i) {
        const QRect r = chipRect(i);
        if (!r.intersects(event->rect())) continue;
        const TokenChip& t = m_tokens[static_cast<size_t>(i)];
        const bool lit = isHighlighted(i);
        p.fillRect(r, lit ? palette().highlight().color() : t.special ? kSpecial : kPlain);
        p.setPen(lit ? palette().highlightedText().color() : t.special ? kSpecialText : kPlainText);
        p.drawText(r.adjusted(kPad, 0, -kPad, 0), Qt::AlignCenter,
            fontMetrics().elidedText(displayToken(t), Qt::ElideRight, r.width() - 2 * kPad));
    }
}

bool TokenChipsView::event(QEvent* event)
{
    if (event->type() == QEvent::FontChange) {
        m_widths.clear();
        m_rectsWidth = -1;
    }
    if (event->type() != QEvent::ToolTip) return QWidget::event(event);
    auto* help = static_cast<QHelpEvent*>(event);
    const int i = chipAt(help->pos());
    if (i < 0) {
        QToolTip::hideText();
        return true;
    }
    const TokenChip& t = m_tokens[static_cast<size_t>(i)];
    QToolTip::showText(help->globalPos(),
        tr("#%1 id %2%3").arg(i).arg(t.id).arg(t.special ? tr(" (special)") : QString()), this, chipRect(i));
    return true;
}

void TokenChipsView::mouseMoveEvent(QMouseEvent* event)
{
    if (!m_link) return;
    const int i = chipAt(event->pos());
    if (i < 0) return m_link->setHovered({});
    if (m_side == Side::Target) return m_link->setHovered({ i, -1 });
    m_link->setHovered(m_link->cross() ? LinkedTokens { -1, i } : LinkedTokens { i, i });
}

void TokenChipsView::leaveEvent(QEvent*)
{
    if (m_link) m_link->setHovered({});
}

} // namespace attn::ui
