// SPDX-License-Identifier: MIT
#pragma once
#include <QScrollArea>

namespace attn::ui {

class TokenChipsView;

/// The scroll area of the Input dock's chips: as tall as their rows at its width, up to `maxRows` rows (a long input
/// scrolls there), so that a short input leaves the height below it to the views instead of blank lines.
class ChipsArea : public QScrollArea {
public:
    ChipsArea(TokenChipsView* chips, int maxRows, QWidget* parent = nullptr);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void fit();

    TokenChipsView* m_chips;
    int m_maxRows;
};

} // namespace attn::ui
