// SPDX-License-Identifier: MIT
#include "mechanisms/flash_page.h"

#include "mechanisms/compare_page.h"
#include "mechanisms/line_plot.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QSpinBox>

#include <algorithm>
#include <cmath>

namespace attn::ui {

FlashPage::FlashPage(QWidget* parent)
    : QWidget(parent)
{
    m_bq = new QSpinBox;
    m_bk = new QSpinBox;
    m_bq->setToolTip(tr("Query rows per tile"));
    m_bk->setToolTip(tr("Key columns per tile"));
    for (QSpinBox* box : { m_bq, m_bk }) {
        box->setRange(1, 512);
        box->setValue(4);
        connect(box, &QSpinBox::editingFinished, this, &FlashPage::tilesChanged);
    }
    m_step = new QSlider(Qt::Horizontal);
    m_step->setObjectName("flashStep");
    m_step->setToolTip(tr("Step through the tiles in the order the kernel visits them"));
    m_stepLabel = new QLabel;
    m_summary = new QLabel;
    m_summary->setWordWrap(true);
    m_running = new LinePlot;
    m_bytes = new LinePlot;
    // The running max and sum wander with the head, and the byte curves end in the top right corner where the
    // legend would sit: both legends go under the axes, off the data.
    m_running->setLegendBelow(2);
    m_bytes->setLegendBelow(2);
    connect(m_step, &QSlider::valueChanged, this, &FlashPage::setStep);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Tiles Bq:")));
    controls->addWidget(m_bq);
    controls->addWidget(new QLabel(tr("Bk:")));
    controls->addWidget(m_bk);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Key block:")));
    controls->addWidget(m_step, 1);
    controls->addWidget(m_stepLabel);
    auto* layout = new QGridLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(controls, 0, 0, 1, 2);
    layout->addWidget(m_summary, 1, 0, 1, 2);
    layout->addWidget(m_running, 2, 0);
    layout->addWidget(m_bytes, 2, 1);
    layout->setRowStretch(2, 1);
}

int64_t FlashPage::blockQ() const
{
    return m_bq->value();
}
int64_t FlashPage::blockK() const
{
    return m_bk->value();
}

void FlashPage::showResult(const MechanismsPtr& result)
{
    const MechanismsResult& r = *result;
    if (const QString why = selfAttentionOnly(r); !why.isEmpty()) {
        m_result.reset();
        m_summary->setText(why);
        m_stepLabel->clear();
        m_step->setEnabled(false);
        m_running->hide(); // empty axes would only look broken
        m_bytes->hide();
        return;
    }
    m_step->setEnabled(true);
    m_running->show();
    m_bytes->show();
    m_result = result; // the shown result, shared: setStep reads its running max and sum
    const FlashRows& f = r.flash;
    const int64_t T = r.inputs.tokens(), rows = static_cast<int64_t>(f.rows.size());
    m_summary->setText(tr("Bq = %1, Bk = %2 on T = %3: %4 tiles visited; max |flash − exact| over the output%5 = %6 "
                          "(the online softmax is exact). Bytes moved (float32): flash %7, standard %8.")
                           .arg(r.request.flashBq)
                           .arg(r.request.flashBk)
                           .arg(T)
                           .arg(f.tilesVisited)
                           .arg(rows < T ? tr(" of %1 evenly spaced query rows").arg(rows) : QString())
                           .arg(r.flashMaxError, 0, 'g', 3)
                           .arg(f.io.flash, 0, 'g', 4)
                           .arg(f.io.standard, 0, 'g', 4));
    std::vector<double> t, standard, flash;
    for (const auto& [tokens, io] : r.io) {
        t.push_back(static_cast<double>(tokens));
        standard.push_back(io.standard);
        flash.push_back(io.flash);
    }
    m_bytes->setAxes(
        tr("Slow-memory traffic vs T (d = %1)").arg(r.inputs.dim()), tr("T (tokens)"), tr("bytes"), {}, true, true);
    m_bytes->setSeries({ { tr("standard (S and P in HBM)"), t, standard, QColor("#d62728") },
        { tr("FlashAttention Bq=%1 Bk=%2").arg(r.request.flashBq).arg(r.request.flashBk), t, flash,
            QColor("#2ca02c") } });
    const QSignalBlocker block(m_step);
    m_step->setRange(0, static_cast<int>(f.runningMax.rows()) - 1);
    m_step->setValue(m_step->maximum());
    setStep(m_step->value());
}

void FlashPage::setStep(int step)
{
    if (!m_result) return;
    const FlashRows& f = m_result->flash;
    step = std::clamp(step, 0, static_cast<int>(f.runningMax.rows()) - 1);
    const int64_t bk = m_result->request.flashBk, T = m_result->inputs.tokens();
    m_stepLabel->setText(tr("%1 / %2: keys [%3, %4)")
                             .arg(step + 1)
                             .arg(f.runningMax.rows())
                             .arg(step * bk)
                             .arg(std::min<int64_t>(T, (step + 1) * bk)));
    std::vector<double> rows, m, l;
    for (size_t i = 0; i < f.rows.size(); ++i) {
        const auto c = static_cast<Eigen::Index>(i);
        // A row that has seen no visible key yet has m = -inf and l = 0: not drawn.
        if (!std::isfinite(f.runningMax(step, c))) continue;
        rows.push_back(static_cast<double>(f.rows[i]));
        m.push_back(f.runningMax(step, c));
        l.push_back(f.runningSum(step, c));
    }
    m_running->setAxes(tr("Online softmax after key block %1").arg(step + 1), tr("query row"), tr("running max m"),
        tr("running sum l"));
    m_running->setSeries({ { tr("running max m"), rows, m, QColor("#1f77b4") },
        { tr("running sum l = Σ exp(s − m)"), rows, l, QColor("#ff7f0e"), true, true } });
}

} // namespace attn::ui
