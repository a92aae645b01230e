// SPDX-License-Identifier: MIT
#pragma once
// The Show-Attend-Tell figure: one small image per generated word with that word's cross-attention over the image,
// the word written above it. Used in the Caption tab and, offscreen, for the exported strip.
#include "caption/caption_state.h"
#include "vision/patch_overlay.h"

#include <QWidget>

#include <vector>

class QHBoxLayout;

namespace attn::ui {

class PatchMapView;

class CaptionStrip : public QWidget {
    Q_OBJECT
public:
    static constexpr int kTileWidth = 104;
    static constexpr int kTileHeight = 124;

    explicit CaptionStrip(QWidget* parent = nullptr);

    /// One tile per word of `state` (none for null), showing `layer` and `head` (-1: mean of heads).
    void setState(const CaptionPtr& state, int64_t layer, int64_t head);
    void setStyle(const OverlayStyle& style, bool showGrid);
    /// Outlines word `word` (-1: none).
    void setSelected(int word);
    int tileCount() const { return static_cast<int>(m_tiles.size()); }
    /// The map tile `word` shows (tests read what is drawn).
    const PatchMapView* tile(int word) const { return m_tiles.at(static_cast<size_t>(word)); }

signals:
    void wordClicked(int word);

private:
    QHBoxLayout* m_layout;
    std::vector<PatchMapView*> m_tiles;
    OverlayStyle m_style;
    bool m_showGrid = false;
    int m_selected = -1;
};

} // namespace attn::ui
