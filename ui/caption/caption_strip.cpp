// SPDX-License-Identifier: MIT
#include "caption/caption_strip.h"

#include "vision/patch_map_view.h"

#include <QHBoxLayout>

namespace attn::ui {

CaptionStrip::CaptionStrip(QWidget* parent)
    : QWidget(parent)
    , m_layout(new QHBoxLayout(this))
{
    m_layout->setContentsMargins(4, 4, 4, 4);
    m_layout->setSpacing(4);
    m_layout->addStretch(1);
}

void CaptionStrip::setState(const CaptionPtr& state, int64_t layer, int64_t head)
{
    const size_t n = state ? state->words.size() : 0;
    while (m_tiles.size() > n) {
        delete m_tiles.back();
        m_tiles.pop_back();
    }
    while (m_tiles.size() < n) {
        auto* tile = new PatchMapView;
        tile->setFixedSize(kTileWidth, kTileHeight);
        tile->setStyle(m_style);
        tile->setShowGrid(m_showGrid);
        const int index = static_cast<int>(m_tiles.size());
        connect(tile, &PatchMapView::patchClicked, this, [this, index] { emit wordClicked(index); });
        m_layout->insertWidget(index, tile);
        m_tiles.push_back(tile);
    }
    for (size_t w = 0; w < n; ++w)
        m_tiles[w]->setContent(state->image, state->grid, state->patchMap(w, layer, head), state->wordTexts[w]);
    setSelected(m_selected < static_cast<int>(n) ? m_selected : -1);
}

void CaptionStrip::setStyle(const OverlayStyle& style, bool showGrid)
{
    m_style = style;
    m_showGrid = showGrid;
    for (PatchMapView* tile : m_tiles) {
        tile->setStyle(style);
        tile->setShowGrid(showGrid);
    }
}

void CaptionStrip::setSelected(int word)
{
    m_selected = word;
    for (size_t w = 0; w < m_tiles.size(); ++w) {
        const bool on = static_cast<int>(w) == word;
        QFont f = font();
        f.setBold(on);
        m_tiles[w]->setFont(f);
        QPalette p = palette();
        if (on) p.setColor(QPalette::Window, QColor(255, 228, 190));
        m_tiles[w]->setPalette(p);
    }
}

} // namespace attn::ui
