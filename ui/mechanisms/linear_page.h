// SPDX-License-Identifier: MIT
#pragma once
#include "mechanisms/mechanisms_request.h"

#include <QWidget>

class QLabel;

namespace attn::ui {

class LinePlot;

/// Linear attention on the head: Linformer's and Performer's output error against the exact attention as the
/// projection size k or the feature count m grows, averaged over seeds.
class LinearPage : public QWidget {
    Q_OBJECT
public:
    explicit LinearPage(QWidget* parent = nullptr);
    void showResult(const MechanismsResult& result);
    LinePlot* errorPlot() const { return m_error; }

private:
    LinePlot* m_error = nullptr;
    QLabel* m_note = nullptr;
};

} // namespace attn::ui
