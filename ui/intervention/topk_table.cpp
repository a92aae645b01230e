// SPDX-License-Identifier: MIT
#include "intervention/topk_table.h"

#include "intervention/ablation_labels.h"

#include <QHeaderView>
#include <QTableWidget>

#include <algorithm>

namespace attn::ui {

namespace {

// Three tokens, on two lines of a column at 1024 px where one does not hold them; the result keeps five.
constexpr size_t kTokensShown = 3;
constexpr int kLinesPerRow = 2;

} // namespace

QTableWidget* newTopKTable() {
    auto* table = new QTableWidget(0, kTopColumns);
    table->setObjectName("topKTable");
    table->setHorizontalHeaderLabels({ QObject::tr("pos"), QObject::tr("token"), QObject::tr("KL (nats)"),
        QObject::tr("unmodified: next tokens"), QObject::tr("ablated: next tokens") });
    table->setToolTip(QObject::tr("Per position: KL(unmodified || ablated) of the next-token distribution and the "
                                  "three most probable next tokens of each run (*: not in the other run's five)"));
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    // Wrapped between entries, not elided: at 1024 px a one-line cell read "˽Once 0.784, ˽One 0.15…".
    table->setWordWrap(true);
    table->verticalHeader()->setDefaultSectionSize(kLinesPerRow * table->fontMetrics().lineSpacing() + 6);
    for (const int c : { kTopPosition, kTopToken, kTopKl })
        table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    table->horizontalHeader()->setSectionResizeMode(kTopClean, QHeaderView::Stretch);
    table->horizontalHeader()->setSectionResizeMode(kTopChanged, QHeaderView::Stretch);
    return table;
}

QString topListText(const std::vector<TopToken>& top, const std::vector<TopToken>& other, const AblationResult& result) {
    QStringList parts;
    for (size_t r = 0; r < std::min(top.size(), kTokensShown); ++r) {
        const TopToken& t = top[r];
        const bool kept = std::any_of(other.begin(), other.end(), [&](const TopToken& o) { return o.id == t.id; });
        // A no-break space: a line ends between entries, never between a token and its probability.
        parts << QStringLiteral("%1%2\u00a0%3")
                     .arg(QString(kept ? "" : "*"), shownToken(result.text, t.id))
                     .arg(t.probability, 0, 'f', 3);
    }
    return parts.join(", ");
}

void fillTopKTable(QTableWidget* table, const AblationResult& result) {
    const int rows = static_cast<int>(result.tokens.size());
    const int selected = table->currentRow();
    table->setRowCount(rows);
    const InterventionDiff& d = result.diff;
    for (int i = 0; i < rows; ++i) {
        const auto at = static_cast<size_t>(i);
        table->setItem(i, kTopPosition, new QTableWidgetItem(QString::number(i)));
        table->setItem(i, kTopToken, new QTableWidgetItem(shownToken(result.text, result.tokens[at])));
        table->setItem(i, kTopKl, new QTableWidgetItem(QString::number(d.kl.data()[i], 'g', 6)));
        table->setItem(i, kTopClean, new QTableWidgetItem(topListText(d.cleanTop[at], d.changedTop[at], result)));
        table->setItem(i, kTopChanged, new QTableWidgetItem(topListText(d.changedTop[at], d.cleanTop[at], result)));
    }
    table->selectRow(std::clamp(selected < 0 ? rows - 1 : selected, 0, std::max(rows - 1, 0)));
}

} // namespace attn::ui
