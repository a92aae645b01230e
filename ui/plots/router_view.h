// SPDX-License-Identifier: MIT
#pragma once
// The router of a mixture-of-experts model (Mixtral): per layer, which experts each token went to with what gate
// weight (tokens x experts, 0 where an expert was not chosen), and the expert load over the input.
#include "controller/attention_provider.h"

#include <QWidget>

class QCustomPlot;
class QCPBars;
class QCPColorMap;
class QLabel;
class QSpinBox;

namespace attn::ui {

class RouterView : public QWidget {
    Q_OBJECT
public:
    explicit RouterView(QWidget* parent = nullptr);

    /// Shows the router of `run`; a run without one (a dense model) clears the view.
    void setRun(RunPtr run);
    bool hasRouter() const { return m_run && !m_run->routerLogits.empty(); }
    void setLayer(int layer);
    /// Gate weight of `token` for `expert` in the shown layer: softmax, top-k and renormalised as the model routes.
    double gateWeight(int64_t token, int64_t expert) const;
    /// Share of the input's tokens routed to `expert` in the shown layer (sums to experts per token over experts).
    double expertLoad(int64_t expert) const;

private:
    void redraw();

    RunPtr m_run;
    Tensor m_weights; ///< [tokens, experts] of the shown layer
    QSpinBox* m_layer;
    QLabel* m_caption;
    QCustomPlot* m_gates;
    QCPColorMap* m_map;
    QCustomPlot* m_load;
    QCPBars* m_bars;
};

} // namespace attn::ui
