// SPDX-License-Identifier: MIT
#pragma once
#include "model/attention_snapshot.h"
#include "widgets/background_picture.h"
#include "widgets/token_link.h"
#include "widgets/view_placeholder.h"

#include <QWidget>

namespace attn::ui {

/// BertViz's model view: every layer x head as a small head view of lines (queries on a cell's left edge, keys on its
/// right). Long inputs are drawn from the overview's blocks, at most kMaxRows per side, so a 12 x 12 model stays cheap;
/// the lines are drawn on a worker thread. Hovering shows the hovered token's lines in every head (linked with the
/// other views); a click (or Enter) opens the head in the head view.
class ModelView : public QWidget {
    Q_OBJECT
public:
    /// Tokens per side drawn token by token; beyond, each line joins two blocks of tokens.
    static constexpr int64_t kMaxRows = 32;

    explicit ModelView(QWidget* parent = nullptr);

    void setSnapshot(SnapshotPtr snapshot);
    /// What the view says while it has no attention to show (what is missing).
    void setPlaceholder(const QString& text);
    void setCurrent(int64_t layer, int64_t head);
    void setLink(TokenLink* link);
    QRect cellRect(int64_t layer, int64_t head) const;
    /// True once the lines of what is on screen are drawn.
    bool linesReady() const;
    QSize sizeHint() const override;
    /// The grid fills the width it gets; a deep model is then taller than its scroll area and scrolls.
    int heightForWidth(int width) const override;

signals:
    void headActivated(qint64 layer, qint64 head);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    int cellSize() const;
    /// The cell under `pos` as (layer, head), or (-1, -1).
    std::pair<int64_t, int64_t> cellAt(const QPoint& pos) const;
    void changed(bool content);

    SnapshotPtr m_snapshot;
    QString m_placeholder = noAttentionYet();
    int64_t m_layer = 0;
    int64_t m_head = 0;
    TokenLink* m_link = nullptr;
    LinkedTokens m_drawnHover;
    PictureKey m_key;
    BackgroundPicture* m_picture = nullptr;
};

} // namespace attn::ui
