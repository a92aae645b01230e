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
/// Measured texts kept (a vocabulary's worth): beyond it the cache starts over rather than grow without bound.
constexpr size_t kMaxTexts = size_t(1) << 17;
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
    const auto n = static_cast<int>(tokens.size());
    const int first = m_maxShown > 0 && n > m_maxShown ? n - m_maxShown : 0;
    const auto same = [](const TokenChip& a, const TokenChip& b) {
        return a.id == b.id && a.special == b.special && a.text == b.text;
    };
    // The same chips again (a redraw of the step shown): nothing to lay out or paint.
    if (m_tokenized && first == m_first
        && std::equal(tokens.begin(), tokens.end(), m_tokens.begin(), m_tokens.end(), same))
        return;
    m_tokens = tokens;
    m_tokenized = true;
    m_special
        = static_cast<int>(std::count_if(tokens.begin(), tokens.end(), [](const TokenChip& t) { return t.special; }));
    m_first = first;
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

QString TokenChipsView::note() const
{
    if (m_tokens.empty()) return m_tokenized ? tr("(no tokens)") : tr("Tokens appear here as you type.");
    return tr("… %n earlier token(s)", nullptr, m_first);
}

int TokenChipsView::measure(const QString& text) const
{
    ++m_measurements;
    // +2: horizontalAdvance rounds, and a text a fraction wider than its chip would be elided
    return fontMetrics().horizontalAdvance(text) + 2 * kPad + 2;
}

const TokenChipsView::ChipText& TokenChipsView::chipText(const TokenChip& token) const
{
    auto it = m_texts.find(token.text);
    if (it != m_texts.end()) return it->second;
    if (m_texts.size() >= kMaxTexts) m_texts.clear();
    ChipText text { displayToken(token), 0 };
    text.width = measure(text.shown);
    return m_texts.emplace(token.text, std::move(text)).first->second;
}

const std::vector<int>& TokenChipsView::chipWidths() const
{
    if (m_widths.empty()) {
        if (m_tokens.empty() || m_first > 0) m_widths.push_back(measure(note()));
        for (int i = m_first; i < count(); ++i)
            m_widths.push_back(chipText(m_tokens[static_cast<size_t>(i)]).width);
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
        ++m_layouts;
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
        p.drawText(rects().front().adjusted(kPad, 0, 0, 0), Qt::AlignVCenter, note());
        p.setFont(font());
    }
    for (int i = m_first; i < count(); ++i) {
        const QRect r = chipRect(i);
        if (!r.intersects(event->rect())) continue;
        const TokenChip& t = m_tokens[static_cast<size_t>(i)];
        const bool lit = isHighlighted(i);
        p.fillRect(r, lit ? palette().highlight().color() : t.special ? kSpecial : kPlain);
        p.setPen(lit ? palette().highlightedText().color() : t.special ? kSpecialText : kPlainText);
        // Elided only in a chip narrower than its text (a token wider than the whole row).
        const ChipText& text = chipText(t);
        p.drawText(r.adjusted(kPad, 0, -kPad, 0), Qt::AlignCenter,
            r.width() >= text.width ? text.shown
                                    : fontMetrics().elidedText(text.shown, Qt::ElideRight, r.width() - 2 * kPad));
    }
}

bool TokenChipsView::event(QEvent* event)
{
    if (event->type() == QEvent::FontChange) {
        m_texts.clear();
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
