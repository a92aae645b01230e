// SPDX-License-Identifier: MIT
#pragma once
#include <qcustomplot.h>

namespace attn::ui {

/// Ticks at whole positions only (1, 2, 5, 10, ... apart): a decode plot with no step yet read "-0.4 -0.2 0 0.2".
inline void setPositionTicks(QCPAxis& axis)
{
    auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    axis.setTicker(ticker);
}

} // namespace attn::ui
