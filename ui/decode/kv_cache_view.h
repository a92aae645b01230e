// SPDX-License-Identifier: MIT
#pragma once
#include "session/decode_step.h"

#include <QWidget>

class QCustomPlot;
class QCPItemRect;
class QLabel;
class QSpinBox;

namespace attn::ui {

/// The KV cache after a step: per layer its length, the key and value norm of every cached position, and for
/// sliding-window models the positions that have left the window of the newest query.
class KvCacheView : public QWidget {
    Q_OBJECT
public:
    explicit KvCacheView(QWidget* parent = nullptr);

    void setInfo(const DecodeModelInfo& info);
    /// Shows the cache as it was after steps[0 .. count).
    void setSteps(const std::vector<DecodeStepPtr>& steps, int64_t count);
    int64_t layer() const;
    void setLayer(int64_t layer);
    /// Positions the newest query no longer sees (sliding window); 0 without a window.
    int64_t positionsOutsideWindow() const { return m_outside; }
    QString summary() const;

private:
    void redraw();

    QCustomPlot* m_plot = nullptr;
    QCPItemRect* m_outsideBand = nullptr;
    QLabel* m_label = nullptr;
    QSpinBox* m_layerBox = nullptr;
    DecodeModelInfo m_info;
    std::vector<DecodeStepPtr> m_steps;
    int64_t m_outside = 0;
};

} // namespace attn::ui
