// SPDX-License-Identifier: MIT
#pragma once
// The Caption tab's head mask as the user builds it: a list of heads removed or scaled in the captioner's encoder,
// decoder self-attention or cross-attention, turned into the engine's [E + 2D, heads] mask (Seq2SeqHeadRows).
#include "core/tensor.h"
#include "model/seq2seq_model.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace attn::ui {

enum class CaptionAttention { Encoder, DecoderSelf, Cross };

struct CaptionMaskEntry {
    int64_t row = 0; ///< the mask row (Seq2SeqHeadRows)
    int64_t head = 0;
    float factor = 0.0f; ///< 0 removes the head, other values scale it (HF head_mask)
    bool operator==(const CaptionMaskEntry&) const = default;
};

/// The mask row of `layer` of `kind`. Throws Error for a layer the model lacks.
int64_t captionMaskRow(const Seq2SeqHeadRows& rows, CaptionAttention kind, int64_t layer);

/// `entries` with `entry` set: it replaces an earlier entry for the same head, and a factor of 1 drops it.
std::vector<CaptionMaskEntry> withEntry(std::vector<CaptionMaskEntry> entries, const CaptionMaskEntry& entry);

/// Ones [rows.rows(), rows.heads] with each entry's factor; empty without entries (the unmodified model exactly).
/// Throws Error for an entry outside `rows`.
Tensor captionHeadMask(const std::vector<CaptionMaskEntry>& entries, const Seq2SeqHeadRows& rows);

/// "cross L1.H3 ×0, enc L0.H2 ×0.5".
QString captionMaskText(const std::vector<CaptionMaskEntry>& entries, const Seq2SeqHeadRows& rows);

} // namespace attn::ui
