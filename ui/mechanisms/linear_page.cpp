// SPDX-License-Identifier: MIT
#include "mechanisms/linear_page.h"

#include "mechanisms/compare_page.h"
#include "mechanisms/line_plot.h"

#include <QLabel>
#include <QVBoxLayout>

#include <cmath>

namespace attn::ui {

namespace {

PlotSeries sweepSeries(const QString& name, const ApproximationSweep& sweep, const QColor& color)
{
    PlotSeries s { name, {}, {}, color };
    for (const SweepPoint& p : sweep.points) {
        s.x.push_back(static_cast<double>(p.size));
        s.y.push_back(p.outRelErr);
    }
    return s;
}

} // namespace

LinearPage::LinearPage(QWidget* parent)
    : QWidget(parent)
    , m_error(new LinePlot)
    , m_note(new QLabel)
{
    m_note->setWordWrap(true);
    m_note->setAlignment(Qt::AlignTop | Qt::AlignLeft); // at the top when it is all the page shows
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_error, 1);
    layout->addWidget(m_note);
}

void LinearPage::showResult(const MechanismsResult& r)
{
    const ApproximationSweep& sweep = r.linformerSweep;
    const QString rows = sweep.rows < sweep.tokens
        ? tr(", on %1 of %2 query rows, evenly spaced").arg(sweep.rows).arg(sweep.tokens)
        : QString();
    m_error->setAxes(tr("Linear attention: output error vs size (mean of %1 seeds%2)").arg(kSweepSeeds).arg(rows),
        tr("Linformer projection size k / Performer features m"), tr("|out − reference out| / |reference out|"), {},
        true, true);
    m_error->setSeries({ sweepSeries(tr("Linformer (vs the unmasked head)"), r.linformerSweep, QColor("#8c564b")),
        sweepSeries(tr("Performer FAVOR+ (vs the head)"), r.performerSweep, QColor("#17becf")) });
    const QString why = selfAttentionOnly(r);
    m_error->setVisible(why.isEmpty()); // no sweeps: empty axes would only look broken
    if (!why.isEmpty()) return m_note->setText(why);
    const double qNorm = r.inputs.q.rowwise().norm().mean(), kNorm = r.inputs.k.rowwise().norm().mean();
    m_note->setText(
        tr("Linformer softmax(q (E k)ᵀ/√d)(F v) mixes every position, so it is measured against the head "
           "without its causal mask; Performer's positive orthogonal random features keep the mask. "
           "Performer's estimate is log-normal with variance growing like exp(|q + k|² / √d): here the mean "
           "|q| is %1 and |k| %2 (unit-variance inputs: √d = %3). Pick linformer:K:SEED or performer:M:SEED "
           "above to see one draw as heatmaps.")
            .arg(qNorm, 0, 'f', 2)
            .arg(kNorm, 0, 'f', 2)
            .arg(std::sqrt(static_cast<double>(r.inputs.dim())), 0, 'f', 2));
}

} // namespace attn::ui
