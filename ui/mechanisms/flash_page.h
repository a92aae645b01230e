// SPDX-License-Identifier: MIT
#pragma once
#include "mechanisms/mechanisms_request.h"

#include <QWidget>

class QLabel;
class QSlider;
class QSpinBox;

namespace attn::ui {

class LinePlot;

/// FlashAttention: step through the key blocks (each row's running max and sum as the tiles are consumed), the
/// agreement with the exact output, and the bytes both algorithms move as T grows.
class FlashPage : public QWidget {
    Q_OBJECT
public:
    explicit FlashPage(QWidget* parent = nullptr);
    void showResult(const MechanismsPtr& result);
    /// Shows the state after key block `step` (0-based).
    void setStep(int step);
    int64_t blockQ() const;
    int64_t blockK() const;
    QSlider* stepper() const { return m_step; }
    LinePlot* runningPlot() const { return m_running; }
    LinePlot* bytesPlot() const { return m_bytes; }
    QLabel* summary() const { return m_summary; }

signals:
    /// The tile sizes changed: the panel asks for a new run.
    void tilesChanged();

private:
    QSpinBox* m_bq = nullptr;
    QSpinBox* m_bk = nullptr;
    QSlider* m_step = nullptr;
    QLabel* m_stepLabel = nullptr;
    QLabel* m_summary = nullptr;
    LinePlot* m_running = nullptr;
    LinePlot* m_bytes = nullptr;
    MechanismsPtr m_result;
};

} // namespace attn::ui
