// SPDX-License-Identifier: MIT
#include "plots/plot_legend.h"

#include <qcustomplot.h>

namespace attn::ui {

void placeLegendAbove(QCustomPlot* plot)
{
    plot->legend->setVisible(true);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, plot->legend); // takes it out of the axis rect's inset layout
    plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot->legend->setBorderPen(Qt::NoPen);
    plot->legend->setMargins(QMargins(4, 0, 4, 0));
    plot->plotLayout()->setRowStretchFactor(0, 0.001); // as tall as the legend needs, the rest to the data
}

} // namespace attn::ui
