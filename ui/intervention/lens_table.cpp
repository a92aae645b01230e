// SPDX-License-Identifier: MIT
#include "intervention/lens_table.h"

#include "intervention/ablation_labels.h"

#include <QHeaderView>
#include <QObject>
#include <QStringList>
#include <QTableWidget>

#include <algorithm>

namespace attn::ui {

QTableWidget* newLensTable()
{
    auto* table = new QTableWidget(0, 3);
    table->setHorizontalHeaderLabels(
        { QObject::tr("read after"), QObject::tr("p(chosen)"), QObject::tr("top next tokens") });
    table->setToolTip(QObject::tr("Per layer: the residual stream through the model's final norm and unembedding; "
                                  "p(chosen) is the probability of the token the model finally predicts here"));
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // The tokens take the width the names and probabilities leave and wrap onto as many lines as they need, each row
    // as tall as its text: sized to their text, the column pushed the table into a sideways scroll beside the Decode
    // tab's plots at 1024 px, and elided, a user read the top tokens only by hovering each cell.
    table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    table->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
    table->setWordWrap(true);
    table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // Names read from the left: centred, the tokens' header was clipped at both ends.
    table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    return table;
}

void nameLensTableRows(QTableWidget* table, bool compact)
{
    // Compact names are short ("embed", "L0"): so is their header, which sets that column's width (ResizeToContents)
    // and left the tokens too little of a narrow view.
    table->horizontalHeaderItem(0)->setText(compact ? QObject::tr("layer") : QObject::tr("read after"));
}

QString lensReadoutName(int64_t readout, int64_t layers, bool compact)
{
    if (compact) return readout == 0 ? QObject::tr("embed") : QObject::tr("L%1").arg(readout - 1);
    return readout == 0     ? QObject::tr("embeddings")
        : readout == layers ? QObject::tr("layer %1 (output)").arg(readout - 1)
                            : QObject::tr("layer %1").arg(readout - 1);
}

void fillLensTable(QTableWidget* table, const LensResult& result, int64_t position, bool compact)
{
    const LogitLens& lens = result.lens;
    const int64_t n = lens.chosenProbability.dim(1), layers = lens.chosenProbability.dim(0) - 1;
    table->setRowCount(static_cast<int>(layers + 1));
    nameLensTableRows(table, compact);
    for (int64_t l = 0; l <= layers; ++l) {
        const auto& top = lens.top[static_cast<size_t>(l)][static_cast<size_t>(position)];
        const size_t shown = compact ? std::min<size_t>(3, top.size()) : top.size();
        QStringList tokens, every;
        for (size_t r = 0; r < top.size(); ++r) {
            const QString token = shownToken(result.text, top[r].id);
            if (r < shown)
                // A no-break space: a line ends between two tokens, never between a token and its probability.
                tokens << QStringLiteral("%1\u00A0%2").arg(token).arg(top[r].probability, 0, 'f', compact ? 2 : 3);
            every << QStringLiteral("%1  %2").arg(top[r].probability, 0, 'f', 3).arg(token);
        }
        const int row = static_cast<int>(l);
        table->setItem(row, 0, new QTableWidgetItem(lensReadoutName(l, layers, compact)));
        table->setItem(
            row, 1, new QTableWidgetItem(QString::number(lens.chosenProbability.data()[l * n + position], 'g', 4)));
        auto* topItem = new QTableWidgetItem(tokens.join(", "));
        topItem->setToolTip(every.join('\n')); // every top token at 3 decimals, one a line
        table->setItem(row, 2, topItem);
    }
}

} // namespace attn::ui
