// SPDX-License-Identifier: MIT
#include "mechanisms/scale_page.h"

#include "mechanisms/line_plot.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace attn::ui {

ScalePage::ScalePage(QWidget* parent)
    : QWidget(parent)
    , m_entropy(new LinePlot)
    , m_max(new LinePlot)
    , m_temperature(new LinePlot)
    , m_dk(new QSlider(Qt::Horizontal))
    , m_readout(new QLabel)
{
    m_entropy->setObjectName("exportFigure");
    // The unscaled curve falls from the top left and the max weight rises to the top right: legends go where they
    // are not.
    m_entropy->setLegendCorner(Qt::AlignBottom | Qt::AlignLeft);
    m_max->setLegendVisible(false); // the same series, colours and names as the entropy plot's legend
    m_temperature->setLegendCorner(Qt::AlignTop | Qt::AlignHCenter);
    m_dk->setObjectName("dkSlider");
    m_dk->setToolTip(tr("The d_k the scores are scaled with: synthetic q, k of that width, and this head's own q, k "
                        "scaled by 1/√d_k (a temperature)"));
    m_dk->setPageStep(1);
    m_dk->setTickPosition(QSlider::TicksBelow);
    m_dk->setTickInterval(1);
    m_dk->setEnabled(false);
    m_readout->setWordWrap(true);
    m_readout->setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(m_dk, &QSlider::valueChanged, this, &ScalePage::showDk);
    auto* slider = new QHBoxLayout;
    slider->addWidget(new QLabel(tr("d_k")));
    slider->addWidget(m_dk, 1);
    auto* plots = new QHBoxLayout;
    plots->addWidget(m_entropy);
    plots->addWidget(m_max);
    plots->addWidget(m_temperature);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(slider);
    layout->addWidget(m_readout);
    layout->addLayout(plots, 1);
}

void ScalePage::showResult(const MechanismsResult& r)
{
    std::vector<double> dk, hs, hu, ms, mu;
    for (const ScalePoint& p : r.sweep) {
        dk.push_back(static_cast<double>(p.dk));
        hs.push_back(p.entropyScaled);
        hu.push_back(p.entropyUnscaled);
        ms.push_back(p.maxScaled);
        mu.push_back(p.maxUnscaled);
    }
    const double T = static_cast<double>(r.inputs.tokens()), x = static_cast<double>(r.head.dk);
    const QColor scaled("#1f77b4"), unscaled("#d62728"), head("#2ca02c");
    std::vector<double> headEntropy, headMax;
    for (const TemperaturePoint& p : r.headAtDk) {
        headEntropy.push_back(p.entropy);
        headMax.push_back(p.maxWeight);
    }
    const QString who = r.inputs.layer >= 0 ? tr("this head") : tr("this input");
    m_entropy->setAxes(tr("Entropy vs d_k (T = %1, ln T = %2)").arg(T).arg(std::log(T), 0, 'f', 2), tr("d_k"),
        tr("mean row entropy (nats)"), {}, true);
    // A learned score (an RNN's) has no 1/√d_k: the head appears on the temperature plot only.
    const bool dotHead = !r.headAtDk.empty();
    std::vector<PlotSeries> entropy
        = { { tr("scaled 1/√d_k (synthetic)"), dk, hs, scaled }, { tr("unscaled (synthetic)"), dk, hu, unscaled } };
    if (dotHead)
        entropy.insert(entropy.end(),
            { { tr("%1, scaled 1/√d_k").arg(who), dk, headEntropy, head, true },
                { tr("%1, scaled").arg(who), { x }, { r.head.entropyScaled }, scaled, false, false, true },
                { tr("%1, unscaled").arg(who), { x }, { r.head.entropyUnscaled }, unscaled, false, false, true } });
    m_entropy->setSeries(entropy);
    std::vector<double> t, ht, mt;
    for (const TemperaturePoint& p : r.temperature) {
        t.push_back(p.temperature);
        ht.push_back(p.entropy);
        mt.push_back(p.maxWeight);
    }
    m_temperature->setAxes(tr("Temperature, %1").arg(who), tr("temperature τ (scores · scale / τ)"),
        tr("mean row entropy (nats)"), tr("mean max weight"), true);
    m_temperature->setSeries({ { tr("entropy"), t, ht, scaled }, { tr("max weight"), t, mt, unscaled, true, true } });
    m_max->setAxes(tr("Max weight vs d_k"), tr("d_k"), tr("mean max weight"), {}, true);
    std::vector<PlotSeries> max
        = { { tr("scaled 1/√d_k (synthetic)"), dk, ms, scaled, true }, { tr("unscaled (synthetic)"), dk, mu, unscaled, true } };
    if (dotHead)
        max.insert(max.end(),
            { { tr("%1, scaled 1/√d_k").arg(who), dk, headMax, head, true },
                { tr("%1, scaled").arg(who), { x }, { r.head.maxScaled }, scaled, false, false, true },
                { tr("%1, unscaled").arg(who), { x }, { r.head.maxUnscaled }, unscaled, false, false, true } });
    m_max->setSeries(max);

    m_sweep = r.sweep;
    m_headAtDk = r.headAtDk;
    m_headDk = r.head.dk;
    m_tokens = r.inputs.tokens();
    const int last = static_cast<int>(m_sweep.size()) - 1;
    int at = m_dk->value();
    if (!m_placed) { // first result: the head's own d_k (or the nearest d_k below it)
        at = 0;
        while (at < last && m_sweep[static_cast<size_t>(at + 1)].dk <= m_headDk)
            ++at;
        m_placed = true;
    }
    const QSignalBlocker block(m_dk);
    m_dk->setRange(0, last);
    m_dk->setValue(std::clamp(at, 0, last));
    m_dk->setEnabled(last >= 0);
    showDk(m_dk->value());
}

void ScalePage::showDk(int index)
{
    if (index < 0 || index >= static_cast<int>(m_sweep.size())) return;
    const ScalePoint& p = m_sweep[static_cast<size_t>(index)];
    const double dk = static_cast<double>(p.dk);
    m_entropy->setMarkerX(dk);
    m_max->setMarkerX(dk);
    auto n = [](double v) { return QString::number(v, 'f', 3); };
    QString text = tr("<b>d_k = %1</b> (ln T = %2). Synthetic q, k: scaled entropy %3, max %4; unscaled entropy %5, "
                      "max %6.")
                       .arg(p.dk)
                       .arg(n(std::log(static_cast<double>(m_tokens))))
                       .arg(n(p.entropyScaled), n(p.maxScaled), n(p.entropyUnscaled), n(p.maxUnscaled));
    if (m_headAtDk.size() == m_sweep.size()) {
        const TemperaturePoint& h = m_headAtDk[static_cast<size_t>(index)];
        m_temperature->setMarkerX(h.temperature);
        text += tr(" This head (d_k %1) scaled by 1/√%2, i.e. τ = %3: entropy %4, max %5.")
                    .arg(m_headDk)
                    .arg(p.dk)
                    .arg(n(h.temperature), n(h.entropy), n(h.maxWeight));
    } else {
        m_temperature->setMarkerX(std::nan(""));
        text += tr(" This head scores with a learned function, not q·k/√d_k: only its temperature applies.");
    }
    m_readout->setText(text);
}

} // namespace attn::ui
