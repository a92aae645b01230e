// SPDX-License-Identifier: MIT
#pragma once
#include "mechanisms/mechanisms_request.h"

#include <QWidget>

namespace attn::ui {

class LinePlot;

/// Why 1/sqrt(d_k): softmax entropy and largest weight against d_k for unit-variance q, k, scaled and unscaled, with
/// the head's own values at its d_k.
class ScalePage : public QWidget {
    Q_OBJECT
public:
    explicit ScalePage(QWidget* parent = nullptr);
    void showResult(const MechanismsResult& result);
    LinePlot* entropyPlot() const { return m_entropy; }
    LinePlot* maxPlot() const { return m_max; }
    LinePlot* temperaturePlot() const { return m_temperature; }

private:
    LinePlot* m_entropy = nullptr;
    LinePlot* m_max = nullptr;
    LinePlot* m_temperature = nullptr;
};

} // namespace attn::ui
