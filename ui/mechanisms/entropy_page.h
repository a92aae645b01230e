// SPDX-License-Identifier: MIT
#pragma once
#include "mechanisms/mechanisms_request.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;

namespace attn::ui {

class HeatmapView;

/// Every head's normalized entropy across layers (1 = uniform over the visible keys), flagging near-uniform and
/// near-one-hot heads (pruning candidates: "some heads are inactive: monitor entropy"). For a decoder on the main
/// input a flagged head can be sent to the Intervene tab, which removes it and measures what that costs.
class EntropyPage : public QWidget {
    Q_OBJECT
public:
    explicit EntropyPage(QWidget* parent = nullptr);
    void showResult(const MechanismsResult& result);
    HeatmapView* map() const { return m_map; }
    QLabel* flags() const { return m_flags; }
    /// The flagged heads ("L0.H3", data: layer * heads + head), near-uniform first.
    QComboBox* flagged() const { return m_flagged; }
    QPushButton* ablateButton() const { return m_ablate; }
    QPushButton* pruningButton() const { return m_pruning; }

signals:
    /// The user asked to remove head (layer, head) on the Intervene tab (same model, same input).
    void ablateRequested(qint64 layer, qint64 head);
    /// The user asked for the Pruning tab (every head's measured importance and the pruning curve).
    void pruningRequested();

private:
    HeatmapView* m_map = nullptr;
    QLabel* m_flags = nullptr;
    QComboBox* m_flagged = nullptr;
    QPushButton* m_ablate = nullptr;
    QPushButton* m_pruning = nullptr;
    int64_t m_heads = 0; ///< heads per layer of the map shown (decodes m_flagged's data)
};

} // namespace attn::ui
