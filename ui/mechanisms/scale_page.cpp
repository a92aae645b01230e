// SPDX-License-Identifier: MIT
#include "mechanisms/scale_page.h"

#include "mechanisms/head_inputs.h"
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
    // Where the curves pass depends on T and the head: the legends go under the axes. The two d_k plots show the
    // same series; each keeps its legend, so that their axes line up and either one exported alone reads.
    for (LinePlot* plot : { m_entropy, m_max, m_temperature })
        plot->setLegendBelow(2);
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
    // A learned score (an RNN's) has no 1/√d_k: the head appears on the temperature plot only. Short names: the
    // legends sit under plots a third of the window wide.
    const bool dotHead = !r.headAtDk.empty();
    const QString one = r.inputs.layer >= 0 ? tr("head") : tr("input");
    auto dkSeries = [&](const std::vector<double>& synthScaled, const std::vector<double>& synthUnscaled,
                        const std::vector<double>& atDk, double asRun, double unscaledAtOwn, bool dashed) {
        std::vector<PlotSeries> out = { { tr("synthetic, scaled"), dk, synthScaled, scaled, dashed },
            { tr("synthetic, unscaled"), dk, synthUnscaled, unscaled, dashed } };
        if (dotHead)
            out.insert(out.end(),
                { { tr("%1 at d_k (÷√d_k)").arg(one), dk, atDk, head, true },
                    { tr("%1 as run").arg(one), { x }, { asRun }, scaled, false, false, true },
                    { tr("%1 unscaled").arg(one), { x }, { unscaledAtOwn }, unscaled, false, false, true } });
        return out;
    };
    const QString sampled = r.sampledRows < r.inputs.tokens()
        ? tr(" (%1 of %2 rows)").arg(r.sampledRows).arg(r.inputs.tokens())
        : QString();
    m_entropy->setAxes(tr("Entropy vs d_k (T = %1, ln T = %2)%3").arg(T).arg(std::log(T), 0, 'f', 2).arg(sampled),
        tr("d_k"), tr("mean row entropy (nats)"), {}, true);
    m_entropy->setSeries(dkSeries(hs, hu, headEntropy, r.head.entropyScaled, r.head.entropyUnscaled, false));
    m_max->setAxes(tr("Max weight vs d_k"), tr("d_k"), tr("mean max weight"), {}, true);
    m_max->setSeries(dkSeries(ms, mu, headMax, r.head.maxScaled, r.head.maxUnscaled, true));

    // The head's entropy rises towards uniform over the keys each row may see (mean ln of their count: below ln T
    // for a causal head), over the rows the curves are measured on.
    const double uniform = r.uniformEntropy;
    std::vector<double> t, ht, mt;
    for (const TemperaturePoint& p : r.temperature) {
        t.push_back(p.temperature);
        ht.push_back(p.entropy);
        mt.push_back(p.maxWeight);
    }
    m_temperature->setAxes(tr("Temperature, %1%2").arg(who, sampled), tr("temperature τ (scores · scale / τ)"),
        tr("mean row entropy (nats)"), tr("mean max weight"), true);
    m_temperature->setSeries({ { tr("entropy"), t, ht, scaled }, { tr("max weight"), t, mt, unscaled, true, true },
        { tr("uniform: %1").arg(uniform, 0, 'f', 2), { t.front(), t.back() }, { uniform, uniform }, QColor("#7f7f7f"),
            true } });

    // Entropy against its whole range, 0 (one-hot) .. uniform, a weight against 0 .. 1, with room for the curves
    // that touch the bounds.
    m_entropy->setYRange(0, 1.05 * std::log(static_cast<double>(std::max(r.inputs.tokens(), r.inputs.keyCount()))));
    m_max->setYRange(0, 1.05);
    m_temperature->setYRange(0, 1.05 * uniform);
    m_temperature->setYRange(0, 1.05, true);
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
