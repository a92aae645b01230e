// SPDX-License-Identifier: MIT
#include "mechanisms/gqa_page.h"

#include "mechanisms/compare_page.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

namespace attn::ui {

GqaPage::GqaPage(QWidget* parent)
    : QWidget(parent)
{
    m_groups = new QSpinBox;
    m_groups->setRange(1, 256);
    m_groups->setValue(1);
    m_groups->setToolTip(tr("Key/value heads shared by the query heads (1: multi-query)"));
    connect(m_groups, &QSpinBox::editingFinished, this, &GqaPage::groupsChanged);
    m_summary = new QLabel;
    m_summary->setWordWrap(true);
    m_summary->setAlignment(Qt::AlignTop | Qt::AlignLeft); // at the top when it is all the page shows
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table = new QTableWidget(0, 5);
    m_table->setHorizontalHeaderLabels({ tr("query head"), tr("model KV head"), tr("pooled group"),
        tr("KL(pooled ‖ exact)"), tr("output rel. error") });
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Pool the layer's KV heads into G groups, G =")));
    controls->addWidget(m_groups);
    controls->addWidget(new QLabel(tr("(1 = multi-query attention)")));
    controls->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
}

int64_t GqaPage::groups() const
{
    return m_groups->value();
}

void GqaPage::showResult(const MechanismsResult& r)
{
    m_table->setRowCount(0);
    const QString why = selfAttentionOnly(r);
    m_table->setVisible(why.isEmpty());
    if (!why.isEmpty()) return m_summary->setText(why);
    if (r.gqaPerHead.empty()) {
        m_summary->setText(tr("GQA needs a model's layer of KV heads: pick a model head, not synthetic input."));
        return;
    }
    const auto& n = r.gqa.numbers;
    const int64_t kvHeads = static_cast<int64_t>(n.at("kv_heads_model")),
                  groups = static_cast<int64_t>(n.at("kv_heads_pooled"));
    const int64_t heads = r.inputs.numHeads, perKv = heads / kvHeads, perGroup = kvHeads / groups;
    m_summary->setText(tr("Layer %1: %2 query heads read %3 KV heads (%4). Pooled to %5: %6.<br>KV cache of this layer "
                          "for %7 tokens (float32): multi-head %8 B, the model %9 B, pooled %10 B.")
                           .arg(r.inputs.layer)
                           .arg(heads)
                           .arg(kvHeads)
                           .arg(kvHeads == heads  ? tr("multi-head")
                                   : kvHeads == 1 ? tr("multi-query")
                                                  : tr("grouped-query"))
                           .arg(groups)
                           .arg(QString::fromStdString(r.gqa.notes.at("groups")).toHtmlEscaped())
                           .arg(r.inputs.tokens())
                           .arg(n.at("kv_cache_bytes_mha"), 0, 'f', 0)
                           .arg(n.at("kv_cache_bytes_model"), 0, 'f', 0)
                           .arg(n.at("kv_cache_bytes"), 0, 'f', 0)
        + (r.sampledRows < r.inputs.tokens() ? tr(" KL and output error on %1 of %2 query rows, evenly spaced.")
                                                   .arg(r.sampledRows)
                                                   .arg(r.inputs.tokens())
                                             : QString()));
    m_table->setRowCount(static_cast<int>(heads));
    for (int64_t h = 0; h < heads; ++h) {
        const MechanismMetrics& m = r.gqaPerHead[static_cast<size_t>(h)];
        const QStringList cells = { QString::number(h), QString::number(h / perKv),
            QString::number(h / perKv / perGroup), metricText(m.klMean), metricText(m.outRelErr) };
        for (int c = 0; c < cells.size(); ++c)
            m_table->setItem(static_cast<int>(h), c, new QTableWidgetItem(cells[c]));
    }
}

} // namespace attn::ui
