// SPDX-License-Identifier: MIT
#pragma once
#include "model/attention_snapshot.h"
#include "widgets/attention_lines.h"
#include "widgets/background_picture.h"
#include "widgets/token_link.h"
#include "widgets/view_placeholder.h"

#include <QWidget>

#include <set>

namespace attn::ui {

/// BertViz-style head view: query tokens on the left, key tokens on the right, a line per (query, key) whose
/// opacity is the attention weight; several heads of one layer at once, each in its own colour.
/// Hovering a left token shows what it attends to, a right token what attends to it; a click pins that token (click
/// again for all lines); a head swatch toggles that head. Only the tokens of the shared token range (TokenLink) are
/// listed, with the lines between them. On screen the lines of the visible rows are drawn on a
/// worker thread and shown when ready, so a long input never blocks the window; exports draw them in place.
class HeadLinesView : public QWidget {
    Q_OBJECT
public:
    explicit HeadLinesView(QWidget* parent = nullptr);

    void setSnapshot(SnapshotPtr snapshot);
    /// What the view says while it has no attention to show (what is missing).
    void setPlaceholder(const QString& text);
    void setLayer(int64_t layer);
    void setHeads(const std::set<int64_t>& heads);
    /// Pins a query token's lines; -1 shows the lines of every query token.
    void setSelectedToken(int64_t token);
    /// Pins a key token: the lines of the queries that attend to it; -1 unpins.
    void setSelectedKey(int64_t key);
    /// Hover reported to and followed from the other views.
    void setLink(TokenLink* link);

    const std::set<int64_t>& heads() const { return m_heads; }
    int64_t layer() const { return m_layer; }
    int64_t selectedToken() const { return m_pinned.query; }
    /// The token whose lines are shown (the hovered one, else the pinned one).
    LinesFocus focus() const;
    /// Exports only: render() leaves the lines out, for the caller to draw linesRequest() on the writing thread.
    void setLinesDeferred(bool deferred) { m_linesDeferred = deferred; }
    /// The lines through `area` (widget coordinates) as they are drawn now.
    LinesRequest linesRequest(const QRectF& area) const;
    /// True once the lines of what is on screen are drawn (tests wait for it).
    bool linesReady() const;
    /// The queries (or keys) of the shared token range, [begin, end).
    std::pair<int64_t, int64_t> shown(bool keys) const;
    static QColor headColor(int64_t head);
    QSize sizeHint() const override;
    /// Exports: the largest row pitch, at most the screen's 20 px, at which every row fits a page `height` px tall (a
    /// 2,048-token head view is otherwise 41,014 px, taller than any figure may be); the token text shrinks with it
    /// and is left out under 6 px, and each row draws fewer lines (as many per pixel of height as on screen).
    void fitRowsTo(int height);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    /// Token rows: the longer of the two columns.
    int rows() const;
    QRect tokenRect(bool left, int64_t index) const;
    QRect swatchRect(int64_t head) const;
    /// Left (query) or right (key) token under `pos`, as a focus; none when between the columns.
    LinesFocus tokenAt(const QPoint& pos) const;
    /// Something the lines depend on changed; `content`: more than the focus token.
    void changed(bool content);

    SnapshotPtr m_snapshot;
    QString m_placeholder = noAttentionYet();
    int64_t m_layer = 0;
    std::set<int64_t> m_heads { 0, 1 };
    LinesFocus m_pinned;
    TokenLink* m_link = nullptr;
    LinesFocus m_drawnFocus; ///< the focus of m_key.focus
    PictureKey m_key;
    BackgroundPicture* m_picture = nullptr;
    bool m_linesDeferred = false;
    int m_rowHeight = 20; ///< pixels per token row
};

} // namespace attn::ui
