// SPDX-License-Identifier: MIT
#pragma once
#include <QScrollArea>

namespace attn::ui {

class TokenChipsView;

/// The scroll area of the Input dock's chips: as tall as their rows at its width, up to a limit (a long input scrolls
/// there), so that a short input leaves the height below it to the views instead of blank lines. The limit is
/// `minRows` rows, or on a tall window as many rows as fit in `share` of its height (setWindowHeight).
class ChipsArea : public QScrollArea {
public:
    ChipsArea(TokenChipsView* chips, int minRows, double share, QWidget* parent = nullptr);
    /// The height of the window the area is in: the limit grows with it.
    void setWindowHeight(int height);
    /// The most rows of chips shown before they scroll.
    int maxRows() const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void fit();

    TokenChipsView* m_chips;
    int m_minRows;
    double m_share;
    int m_windowHeight = 0;
};

} // namespace attn::ui
