// SPDX-License-Identifier: MIT
#pragma once
// The logit lens as a table, shared by the Logit lens tab and the Decode tab's lens view: per readout (the embeddings,
// then after each layer) the probability of the finally chosen token and the top next tokens at one position.
#include "intervention/lens_result.h"

#include <QString>

#include <cstdint>

class QTableWidget;

namespace attn::ui {

/// A read-only table with the columns "read after", "p(chosen)" and "top next tokens"; the last fills the width left
/// and wraps (rows grow to their text), so the top tokens read without hovering.
QTableWidget* newLensTable();
/// The header of the row names: "layer" over compact names, else "read after" (fillLensTable sets it too).
void nameLensTableRows(QTableWidget* table, bool compact);
/// The name of readout `readout` (0: the embeddings, r: after layer r - 1) of a model of `layers` layers: the table's
/// row names, and the Logit lens plot's x ticks, which name the same readouts the same way.
QString lensReadoutName(int64_t readout, int64_t layers, bool compact);
/// Fills `table` for `position` of `result`. Compact (a narrow view): short row names under the header "layer" and the
/// top three tokens at 2 decimals; otherwise every top token at 3. p(chosen) has 4 significant digits.
void fillLensTable(QTableWidget* table, const LensResult& result, int64_t position, bool compact);

} // namespace attn::ui
