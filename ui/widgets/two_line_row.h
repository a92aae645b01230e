// SPDX-License-Identifier: MIT
#pragma once
#include <QLayout>

#include <memory>

namespace attn::ui {

/// A row of controls in two parts: the lead at the left and the tail at the right, on one line where both fit at
/// their size hints, else the tail on a second line under the lead, right-aligned. A box layout squeezed the tail's
/// find box to ~15 px beside the Decode tab's heatmap at 1024 px rather than give the row a second line.
class TwoLineRow : public QLayout {
public:
    explicit TwoLineRow(QWidget* parent = nullptr);
    ~TwoLineRow() override;

    /// The two parts (each a widget with its own layout); call once each.
    void setLead(QWidget* lead);
    void setTail(QWidget* tail);
    /// Whether `width` puts the tail on a second line.
    bool wraps(int width) const;

    void addItem(QLayoutItem* item) override;
    QLayoutItem* itemAt(int index) const override;
    QLayoutItem* takeAt(int index) override;
    int count() const override;
    QSize sizeHint() const override;
    QSize minimumSize() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    void setGeometry(const QRect& rect) override;

private:
    std::unique_ptr<QLayoutItem> m_lead, m_tail;
};

} // namespace attn::ui
