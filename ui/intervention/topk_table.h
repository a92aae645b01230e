// SPDX-License-Identifier: MIT
#pragma once
// The Intervene tab's table: per position the input token, the KL of its next-token distribution and the top tokens
// before and after the intervention.
#include "intervention/ablation_result.h"

#include <QString>

class QTableWidget;

namespace attn::ui {

enum TopKColumn { kTopPosition, kTopToken, kTopKl, kTopClean, kTopChanged, kTopColumns };

/// A table with the columns above, read-only, one row selected at a time.
QTableWidget* newTopKTable();
/// Fills `table` from `result`, one row per position (the KL as its number, 'g' with 6 digits).
void fillTopKTable(QTableWidget* table, const AblationResult& result);
/// "text 0.412, *text 0.103, …" of the first three of one top list: a star marks a token not in the other list.
QString topListText(const std::vector<TopToken>& top, const std::vector<TopToken>& other, const AblationResult& result);

} // namespace attn::ui
