// SPDX-License-Identifier: MIT
#pragma once
// The small line plots of the Mechanisms tab (scale, FlashAttention, RoPE decay): one QCustomPlot with a legend and
// named series, so each page only says what to draw.
#include <QColor>
#include <QString>
#include <QWidget>

#include <cmath>
#include <optional>
#include <utility>
#include <vector>

class QCustomPlot;
class QCPItemStraightLine;

namespace attn::ui {

struct PlotSeries {
    QString name;
    std::vector<double> x, y;
    QColor color;
    bool dashed = false;
    bool rightAxis = false; ///< drawn against the right-hand axis
    bool pointsOnly = false; ///< markers, no line
};

class LinePlot : public QWidget {
    Q_OBJECT
public:
    explicit LinePlot(QWidget* parent = nullptr);
    /// log2 / log10 axes where asked; labels for x, left and (when a series uses it) right axis.
    void setAxes(const QString& title, const QString& x, const QString& left, const QString& right = {},
        bool logX = false, bool logY = false);
    /// setAxes for an x that counts (positions, layers): ticks only at whole numbers, never "2.5".
    void setIntegerX(const QString& title, const QString& x, const QString& left);
    void setSeries(const std::vector<PlotSeries>& series);
    void setLegendVisible(bool visible);
    /// The legend in a row of its own under the axes, `columns` entries wide, once there is a series: for curves
    /// that may pass anywhere.
    void setLegendBelow(int columns);
    /// Keeps the left (or right) axis at [low, high] whatever the data: bounded quantities (an entropy 0 .. ln keys, a
    /// weight 0 .. 1) read against their whole range.
    void setYRange(double low, double high, bool rightAxis = false);
    /// A vertical line at x (a slider's position); NaN hides it.
    void setMarkerX(double x);
    double markerX() const { return m_markerX; }
    const std::vector<PlotSeries>& series() const { return m_series; }
    const QString& title() const { return m_title; }
    QCustomPlot* plot() const { return m_plot; }

private:
    void placeLegendBelow();

    QCustomPlot* m_plot = nullptr;
    bool m_legendBelow = false;
    bool m_integerX = false; ///< setIntegerX's
    std::vector<PlotSeries> m_series;
    QString m_title;
    bool m_logX = false, m_logY = false;
    QCPItemStraightLine* m_marker = nullptr;
    double m_markerX = std::nan("");
    std::optional<std::pair<double, double>> m_leftRange, m_rightRange; ///< setYRange's
};

} // namespace attn::ui
