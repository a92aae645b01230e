// SPDX-License-Identifier: MIT
#pragma once
#include "model/attention_snapshot.h"

#include <QString>

namespace attn::ui {

/// A token as people read it: byte-level BPE and SentencePiece space markers become a visible space sign,
/// newlines an arrow; the empty string a placeholder.
QString displayToken(const TokenChip& token);

/// displayToken() cut to `maxChars` with an ellipsis (axis labels).
QString elidedToken(const TokenChip& token, int maxChars);

} // namespace attn::ui
