// SPDX-License-Identifier: MIT
#pragma once
#include "mechanisms/mechanisms_request.h"

#include <QWidget>

class QLabel;

namespace attn::ui {

class HeatmapView;

/// Every head's normalized entropy across layers (1 = uniform over the visible keys), flagging near-uniform and
/// near-one-hot heads (pruning candidates: "some heads are inactive: monitor entropy").
class EntropyPage : public QWidget {
    Q_OBJECT
public:
    explicit EntropyPage(QWidget* parent = nullptr);
    void showResult(const MechanismsResult& result);
    HeatmapView* map() const { return m_map; }
    QLabel* flags() const { return m_flags; }

private:
    HeatmapView* m_map = nullptr;
    QLabel* m_flags = nullptr;
};

} // namespace attn::ui
