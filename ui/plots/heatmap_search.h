// SPDX-License-Identifier: MIT
#pragma once
// Find by token text in a heatmap of any length: a find box (Ctrl+F) in the controls row; Enter or F3 goes to the
// next token whose text contains what was typed (Shift+F3 back), zooming the view around that token's row and column,
// which get orange bands; the matches are counted ("3 of 17") and, for a long input, ticked on the minimap's edges.
#include "model/token_chip.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

class QCPItemRect;
class QCustomPlot;
class QLabel;
class QLineEdit;

namespace attn::ui {

class HeatmapMinimap;
class HeatmapView;

/// The positions of `tokens` whose text contains `needle`, ignoring case and the spaces around it (a token's
/// leading space is part of its text); in order, none for an empty needle.
std::vector<int64_t> tokenMatches(const std::vector<TokenChip>& tokens, const QString& needle);

class HeatmapSearch : public QObject {
public:
    /// Searches the tokens of `view`'s snapshot; `goTo(row, col)` zooms the view around a cell.
    HeatmapSearch(HeatmapView* view, QCustomPlot* plot, HeatmapMinimap* minimap,
        std::function<void(double row, double col)> goTo);

    QLineEdit* box() const { return m_box; }
    QLabel* countLabel() const { return m_count; }
    /// Another input: its own matches, none current yet, so no band is left on tokens of the old one.
    void snapshotChanged() { search(false); }
    /// The query row and key column the current match's bands mark (-1: that band is hidden).
    std::pair<int64_t, int64_t> bands() const;

private:
    /// Finds the matches again (the text or the snapshot changed); `go` moves to the first.
    void search(bool go);
    /// Moves `step` matches on (wrapping; -1 goes back) and zooms there.
    void next(int step);
    /// The current match's bands, "i of n" and the minimap's ticks.
    void show();

    HeatmapView* m_view;
    QCustomPlot* m_plot;
    HeatmapMinimap* m_minimap;
    std::function<void(double, double)> m_goTo;
    QLineEdit* m_box = nullptr;
    QLabel* m_count = nullptr;
    QCPItemRect* m_row = nullptr;
    QCPItemRect* m_column = nullptr;
    std::vector<int64_t> m_matches;
    int m_match = -1; ///< the current one (-1: none yet)
    const void* m_searched = nullptr; ///< the snapshot m_matches were found in
};

} // namespace attn::ui
