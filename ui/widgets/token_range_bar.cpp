// SPDX-License-Identifier: MIT
#include "widgets/token_range_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QToolButton>

namespace attn::ui {

TokenRangeBar::TokenRangeBar(TokenLink* link, QWidget* parent)
    : QWidget(parent)
{
    setObjectName("tokenRangeBar");
    m_sequence = new QLabel;
    m_sequence->setObjectName("rangeSequence");
    m_sequence->setToolTip(tr("Whose positions the range counts: on the Decode tab the decoded text's (prompt and new "
                              "tokens), on every other tab the main input's"));
    m_from = new QSpinBox;
    m_from->setObjectName("rangeFrom");
    m_from->setPrefix(tr("tokens "));
    m_from->setToolTip(tr("First token position every view shows (zooming the heatmap sets it too)"));
    m_to = new QSpinBox;
    m_to->setObjectName("rangeTo");
    m_to->setPrefix(tr("to "));
    m_to->setToolTip(tr("Last token position every view shows"));
    m_rows = new QLabel;
    m_rows->setObjectName("rangeRows");
    m_rows->setToolTip(tr("The query rows shown, where they are not the same positions as the keys"));
    m_all = new QToolButton;
    m_all->setObjectName("rangeAll");
    m_all->setText(tr("All"));
    m_all->setToolTip(tr("Show every token again in every view"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 0, 0, 0);
    layout->addWidget(m_sequence);
    layout->addWidget(m_from);
    layout->addWidget(m_to);
    layout->addWidget(m_rows);
    layout->addWidget(m_all);
    connect(m_from, &QSpinBox::valueChanged, this, &TokenRangeBar::edited);
    connect(m_to, &QSpinBox::valueChanged, this, &TokenRangeBar::edited);
    connect(m_all, &QToolButton::clicked, this, [this] { m_link->setRange({}); });
    address(link, 0, 0, tr("input:"));
}

void TokenRangeBar::address(TokenLink* link, int64_t queries, int64_t keys, const QString& sequence)
{
    if (link != m_link) {
        if (m_link) disconnect(m_link, nullptr, this, nullptr);
        m_link = link;
        connect(m_link, &TokenLink::rangeChanged, this, &TokenRangeBar::showRange);
    }
    m_sequence->setText(sequence);
    m_queries = queries;
    m_keys = keys;
    {
        const QSignalBlocker blockFrom(m_from), blockTo(m_to);
        m_from->setRange(0, static_cast<int>(std::max<int64_t>(0, keys - 1)));
        m_to->setRange(0, static_cast<int>(std::max<int64_t>(0, keys - 1)));
    }
    setEnabled(keys > 0 && m_applies);
    showRange();
}

void TokenRangeBar::setApplies(bool applies)
{
    m_applies = applies;
    setEnabled(m_keys > 0 && m_applies);
}

QString TokenRangeBar::sequenceText() const
{
    return m_sequence->text();
}

QString TokenRangeBar::rowsText() const
{
    return m_rows->isHidden() ? QString() : m_rows->text();
}

void TokenRangeBar::showRange()
{
    const TokenRange range = m_link->range();
    const auto [k0, k1] = range.span(true, m_keys);
    const auto [q0, q1] = range.span(false, m_queries);
    {
        const QSignalBlocker blockFrom(m_from), blockTo(m_to);
        m_from->setValue(static_cast<int>(k0));
        m_to->setValue(static_cast<int>(std::max<int64_t>(k0, k1 - 1)));
    }
    m_rows->setText(tr("rows %1–%2").arg(q0).arg(std::max<int64_t>(q0, q1 - 1)));
    // As set, not as clamped: cross-attention's whole range has more (or fewer) queries than keys, which is no news.
    m_rows->setVisible(m_keys > 0 && (range.query0 != range.key0 || range.query1 != range.key1));
    m_all->setEnabled(!range.all());
}

void TokenRangeBar::edited()
{
    if (m_to->value() < m_from->value()) {
        const QSignalBlocker blockTo(m_to);
        m_to->setValue(m_from->value());
    }
    const int64_t first = m_from->value(), end = m_to->value() + 1;
    // The same positions of queries and keys (the diagonal block of self-attention); the whole sequence is "all".
    const int64_t last = end >= m_keys ? -1 : end;
    m_link->setRange({ first, last, first, last });
}

} // namespace attn::ui
