// SPDX-License-Identifier: MIT
#pragma once
#include "session/decode_step.h"
#include "plots/colormaps.h"
#include "widgets/token_link.h"

#include <QImage>
#include <QWidget>

namespace attn::ui {

/// The attention row of one step for every layer (down) and head (across): each cell is that head's row over all
/// keys so far (or of the token range's keys), left = first token, scaled to the row's maximum. Click selects a head.
class AttentionStripView : public QWidget {
    Q_OBJECT
public:
    explicit AttentionStripView(QWidget* parent = nullptr);

    /// Shows the step's captured rows; a step without any (its rows are derived) keeps the rows shown until
    /// setRows() brings its own, so a running decode does not flicker.
    void setStep(DecodeStepPtr step);
    /// Per layer [heads, keys]: the rows to show (derived for the current step on the engine thread).
    void setRows(const std::vector<Tensor>& rows);
    void setCurrent(int64_t layer, int64_t head);
    /// The keys each cell shows: those of `range` (all by default).
    void setRange(attn::ui::TokenRange range);
    /// The keys shown, [begin, end) (empty without rows).
    std::pair<int64_t, int64_t> shownKeys() const;
    int64_t layer() const { return m_layer; }
    int64_t head() const { return m_head; }
    const QImage& image() const { return m_image; }
    QSize sizeHint() const override;

signals:
    void headActivated(qint64 layer, qint64 head);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    QRect cellRect(int64_t layer, int64_t head) const;

    QImage m_image; ///< one pixel row per (layer, head), keys across: [layers * heads, keys]
    int64_t m_layers = 0;
    int64_t m_heads = 0;
    int64_t m_layer = 0;
    int64_t m_head = 0;
    TokenRange m_range;
};

} // namespace attn::ui
