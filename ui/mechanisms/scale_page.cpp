// SPDX-License-Identifier: MIT
#include "mechanisms/scale_page.h"

#include "mechanisms/line_plot.h"

#include <QHBoxLayout>

#include <cmath>

namespace attn::ui {

ScalePage::ScalePage(QWidget* parent)
    : QWidget(parent)
    , m_entropy(new LinePlot)
    , m_max(new LinePlot)
    , m_temperature(new LinePlot)
{
    m_entropy->setObjectName("exportFigure");
    // The unscaled curve falls from the top left and the max weight rises to the top right: legends go where they
    // are not.
    m_entropy->setLegendCorner(Qt::AlignBottom | Qt::AlignLeft);
    m_max->setLegendCorner(Qt::AlignTop | Qt::AlignLeft);
    m_temperature->setLegendCorner(Qt::AlignTop | Qt::AlignHCenter);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_entropy);
    layout->addWidget(m_max);
    layout->addWidget(m_temperature);
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
    const QColor scaled("#1f77b4"), unscaled("#d62728");
    const QString who = r.inputs.layer >= 0 ? tr("this head") : tr("this input");
    m_entropy->setAxes(tr("Entropy vs d_k (T = %1, ln T = %2)").arg(T).arg(std::log(T), 0, 'f', 2), tr("d_k"),
        tr("mean row entropy (nats)"), {}, true);
    m_entropy->setSeries(
        { { tr("scaled 1/√d_k (synthetic)"), dk, hs, scaled }, { tr("unscaled (synthetic)"), dk, hu, unscaled },
            { tr("%1, scaled").arg(who), { x }, { r.head.entropyScaled }, scaled, false, false, true },
            { tr("%1, unscaled").arg(who), { x }, { r.head.entropyUnscaled }, unscaled, false, false, true } });
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
    m_max->setSeries({ { tr("scaled 1/√d_k (synthetic)"), dk, ms, scaled, true },
        { tr("unscaled (synthetic)"), dk, mu, unscaled, true },
        { tr("%1, scaled").arg(who), { x }, { r.head.maxScaled }, scaled, false, false, true },
        { tr("%1, unscaled").arg(who), { x }, { r.head.maxUnscaled }, unscaled, false, false, true } });
}

} // namespace attn::ui
