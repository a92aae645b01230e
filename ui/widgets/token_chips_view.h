// SPDX-License-Identifier: MIT
#pragma once
#include "model/attention_snapshot.h"
#include "widgets/token_link.h"

#include <QWidget>

#include <string>
#include <unordered_map>
#include <vector>

namespace attn::ui {

/// The tokenized input as a wrapped row of chips; special tokens ([CLS], <s>, ...) in a different colour. Painted
/// (only the chips in view), so thousands of tokens lay out and repaint quickly; hovering a chip highlights the token
/// in the linked views, and the token hovered there is highlighted here.
class TokenChipsView : public QWidget {
    Q_OBJECT
public:
    /// Which sequence the chips show: the source (for self-attention the only one) or an encoder-decoder's target.
    enum class Side { Source, Target };

    explicit TokenChipsView(QWidget* parent = nullptr);
    void setTokens(const std::vector<TokenChip>& tokens);
    /// Shows at most the last `count` tokens after a "… N earlier" note (0 = all): the decode tab sets the tokens many
    /// times a second while its heatmap shows all of them anyway.
    void setMaxShown(int count) { m_maxShown = count; }
    void setLink(TokenLink* link, Side side);
    int count() const { return static_cast<int>(m_tokens.size()); }
    /// Chips drawn (count() minus those folded into the note).
    int shownCount() const { return count() - m_first; }
    /// The first token that has a chip (the ones before are counted in the note).
    int firstShown() const { return m_first; }
    int specialCount() const { return m_special; }
    const std::vector<TokenChip>& tokens() const { return m_tokens; }
    /// The chip of token `index` in this widget's coordinates (empty when folded away).
    QRect chipRect(int index) const;
    /// Whether token `index` is highlighted because it is hovered here or in a linked view.
    bool isHighlighted(int index) const;

    /// The height of `rows` rows of chips (what a scroll area around them shows of a long input).
    int rowsHeight(int rows) const;

    /// Texts measured so far: each token text once (and the note once per setTokens that has one), however often
    /// the chips are set again (tests).
    int measurements() const { return m_measurements; }
    /// Times the chips were laid out for painting: once per change of tokens or width (tests).
    int layouts() const { return m_layouts; }

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    /// A token's text as drawn and the width of its chip.
    struct ChipText {
        QString shown;
        int width = 0;
    };

    /// Chip rectangles for `width` (the note first when there is one); returns the height used.
    int layoutChips(int width, std::vector<QRect>* rects) const;
    /// Each slot's chip width at any row width (computed once per setTokens: a layout asks for it many times).
    const std::vector<int>& chipWidths() const;
    /// The text and chip width of `token`, measured the first time its text is asked for: the Decode tab sets the
    /// newest tokens ~10 times a second during Run, mostly tokens it has shown before.
    const ChipText& chipText(const TokenChip& token) const;
    /// The chip width of `text` as drawn.
    int measure(const QString& text) const;
    /// The layout for the current width (computed again after a resize).
    const std::vector<QRect>& rects() const;
    /// The first slot's text when it is no token: the hint, "(no tokens)" or the note of the tokens folded away.
    QString note() const;
    int chipAt(const QPoint& pos) const;

    std::vector<TokenChip> m_tokens;
    bool m_tokenized = false; ///< false until the first setTokens: a hint instead of "(no tokens)"
    int m_first = 0;
    int m_maxShown = 0;
    int m_special = 0;
    mutable std::vector<int> m_widths; ///< per slot, empty until chipWidths() asks for them
    mutable std::unordered_map<std::string, ChipText> m_texts; ///< by TokenChip::text, until the font changes
    mutable int m_measurements = 0;
    mutable int m_layouts = 0;
    mutable std::vector<QRect> m_rects; ///< per slot: [note,] then one per shown token
    mutable int m_rectsWidth = -1;
    TokenLink* m_link = nullptr;
    Side m_side = Side::Source;
};

} // namespace attn::ui
