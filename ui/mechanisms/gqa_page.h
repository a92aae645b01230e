// SPDX-License-Identifier: MIT
#pragma once
#include "mechanisms/mechanisms_request.h"

#include <QWidget>

class QLabel;
class QSpinBox;
class QTableWidget;

namespace attn::ui {

/// GQA / MQA: which query heads share which KV head, and the what-if of mean-pooling the layer's KV heads into G
/// groups (the GQA paper's conversion): attention change and output error per head, KV-cache size.
class GqaPage : public QWidget {
    Q_OBJECT
public:
    explicit GqaPage(QWidget* parent = nullptr);
    void showResult(const MechanismsResult& result);
    int64_t groups() const;
    QTableWidget* table() const { return m_table; }
    QLabel* summary() const { return m_summary; }

signals:
    void groupsChanged();

private:
    QSpinBox* m_groups = nullptr;
    QLabel* m_summary = nullptr;
    QTableWidget* m_table = nullptr;
};

} // namespace attn::ui
