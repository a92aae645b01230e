// SPDX-License-Identifier: MIT
#include "mechanisms/flash_page.h"

#include "mechanisms/compare_page.h"
#include "mechanisms/line_plot.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QSpinBox>

#include <cmath>

namespace attn::ui {

namespace {

const Mat* namedArray(const MechanismResult& r, const std::string& name)
{
    for (const NamedArray& a : r.arrays)
        if (a.name == name) return &a.values;
    return nullptr;
}

} // namespace

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
    m_running->setObjectName("exportFigure");
    m_bytes = new LinePlot;
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

void FlashPage::showResult(const MechanismsResult& r)
{
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
    m_result = std::make_shared<const MechanismsResult>(r);
    const Mat& runningMax = *namedArray(r.flash, "running_max");
    const double err = (r.flash.out - r.report.exactOut).cwiseAbs().maxCoeff();
    m_summary->setText(tr("Bq = %1, Bk = %2 on T = %3: %4 tiles visited; max |flash − exact| over the output = %5 "
                          "(the online softmax is exact). Bytes moved (float32): flash %6, standard %7.")
                           .arg(r.request.flashBq)
                           .arg(r.request.flashBk)
                           .arg(r.inputs.tokens())
                           .arg(r.flash.numbers.at("tiles_visited"))
                           .arg(err, 0, 'g', 3)
                           .arg(r.flash.numbers.at("bytes_moved"), 0, 'g', 4)
                           .arg(r.flash.numbers.at("bytes_moved_standard"), 0, 'g', 4));
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
    m_step->setRange(0, static_cast<int>(runningMax.rows()) - 1);
    m_step->setValue(m_step->maximum());
    setStep(m_step->value());
}

void FlashPage::setStep(int step)
{
    if (!m_result) return;
    const Mat& runningMax = *namedArray(m_result->flash, "running_max");
    const Mat& runningSum = *namedArray(m_result->flash, "running_sum");
    step = std::clamp(step, 0, static_cast<int>(runningMax.rows()) - 1);
    const int64_t bk = m_result->request.flashBk, T = m_result->inputs.tokens();
    m_stepLabel->setText(tr("%1 / %2: keys [%3, %4)")
                             .arg(step + 1)
                             .arg(runningMax.rows())
                             .arg(step * bk)
                             .arg(std::min<int64_t>(T, (step + 1) * bk)));
    std::vector<double> rows, m, l;
    for (int64_t i = 0; i < T; ++i) {
        // A row that has seen no visible key yet has m = -inf and l = 0: not drawn.
        if (!std::isfinite(runningMax(step, i))) continue;
        rows.push_back(static_cast<double>(i));
        m.push_back(runningMax(step, i));
        l.push_back(runningSum(step, i));
    }
    m_running->setAxes(tr("Online softmax after key block %1").arg(step + 1), tr("query row"), tr("running max m"),
        tr("running sum l"));
    m_running->setSeries({ { tr("running max m"), rows, m, QColor("#1f77b4") },
        { tr("running sum l = Σ exp(s − m)"), rows, l, QColor("#ff7f0e"), true, true } });
}

} // namespace attn::ui
