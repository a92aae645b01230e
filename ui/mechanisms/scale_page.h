// SPDX-License-Identifier: MIT
#pragma once
#include "mechanisms/mechanisms_request.h"

#include <QWidget>

class QLabel;
class QSlider;

namespace attn::ui {

class LinePlot;

/// Why 1/sqrt(d_k): softmax entropy and largest weight against d_k for unit-variance q, k, scaled and unscaled, with
/// the head's own q, k scaled by 1/sqrt(d_k) at every d_k. A d_k slider marks one d_k on the plots and says the
/// numbers there (for the head, the same choice is a temperature).
class ScalePage : public QWidget {
    Q_OBJECT
public:
    explicit ScalePage(QWidget* parent = nullptr);
    void showResult(const MechanismsResult& result);
    LinePlot* entropyPlot() const { return m_entropy; }
    LinePlot* maxPlot() const { return m_max; }
    LinePlot* temperaturePlot() const { return m_temperature; }
    /// Index into the sweep's d_k values (1, 2, 4, ...).
    QSlider* dkSlider() const { return m_dk; }
    QLabel* readout() const { return m_readout; }

private:
    void showDk(int index);

    LinePlot* m_entropy = nullptr;
    LinePlot* m_max = nullptr;
    LinePlot* m_temperature = nullptr;
    QSlider* m_dk = nullptr;
    QLabel* m_readout = nullptr;
    std::vector<ScalePoint> m_sweep;
    std::vector<TemperaturePoint> m_headAtDk;
    int64_t m_headDk = 0, m_tokens = 0;
    bool m_placed = false; ///< the slider has been put at the first head's d_k
};

} // namespace attn::ui
