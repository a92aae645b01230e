// SPDX-License-Identifier: MIT
#pragma once
#include "session/decode_step.h"

#include <QWidget>

#include <vector>

namespace attn::ui {

/// The Decode tab's branches drawn as a tree: one lane per timeline over the positions, the shown timeline first
/// (bold), each other lane starting where it forks from a lane above, with its first diverging tokens. The prompt's
/// positions are shaded (they cannot be forced). Clicking a lane goes over to that timeline; clicking back compares.
/// Hidden while there are no branches.
class BranchTreeView : public QWidget {
    Q_OBJECT
public:
    /// Lanes drawn at full height; beyond, they share the same height.
    static constexpr int kFullLanes = 4;

    explicit BranchTreeView(QWidget* parent = nullptr);

    /// The shown timeline and the others (DecodeController::branches(), whose indexes branchActivated() names).
    void setTimelines(const std::vector<DecodeStepPtr>& current, const std::vector<std::vector<DecodeStepPtr>>& others);

    /// One lane as drawn: `branch` indexes the others (-1: the shown timeline); it leaves lane `parent` after
    /// `fork` shared positions.
    struct Lane {
        int branch = -1;
        int parent = -1;
        int64_t fork = 0;
        int64_t length = 0;
        QString tail; ///< its tokens from the fork on
    };
    const std::vector<Lane>& lanes() const { return m_lanes; }
    /// Where lane `index` is drawn (a click inside it activates its branch).
    QRect laneRect(int index) const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    /// A lane of another timeline was clicked: index into the `others` given to setTimelines().
    void branchActivated(int branch);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    int laneHeight() const;
    double xOf(int64_t position) const;
    int laneAt(const QPoint& pos) const;

    std::vector<Lane> m_lanes;
    int64_t m_prompt = 0; ///< prompt positions (shared by every lane)
    int64_t m_longest = 1;
    int m_hover = -1; ///< the lane under the mouse
};

} // namespace attn::ui
