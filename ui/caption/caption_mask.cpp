// SPDX-License-Identifier: MIT
#include "caption/caption_mask.h"

#include "core/error.h"

#include <QStringList>

#include <algorithm>

namespace attn::ui {

int64_t captionMaskRow(const Seq2SeqHeadRows& rows, CaptionAttention kind, int64_t layer)
{
    const int64_t layers = kind == CaptionAttention::Encoder ? rows.encoderLayers : rows.decoderLayers;
    if (layer < 0 || layer >= layers) throw Error("the captioner has no layer " + std::to_string(layer) + " there");
    switch (kind) {
    case CaptionAttention::Encoder:
        return layer;
    case CaptionAttention::DecoderSelf:
        return rows.decoderSelfRow(layer);
    case CaptionAttention::Cross:
        break;
    }
    return rows.crossRow(layer);
}

std::vector<CaptionMaskEntry> withEntry(std::vector<CaptionMaskEntry> entries, const CaptionMaskEntry& entry)
{
    std::erase_if(entries, [&](const CaptionMaskEntry& e) { return e.row == entry.row && e.head == entry.head; });
    if (entry.factor != 1.0f) entries.push_back(entry);
    return entries;
}

Tensor captionHeadMask(const std::vector<CaptionMaskEntry>& entries, const Seq2SeqHeadRows& rows)
{
    if (entries.empty()) return {};
    Tensor mask({ rows.rows(), rows.heads });
    std::fill(mask.storage().begin(), mask.storage().end(), 1.0f);
    for (const CaptionMaskEntry& e : entries) {
        if (e.row < 0 || e.row >= rows.rows() || e.head < 0 || e.head >= rows.heads)
            throw Error("head mask entry " + std::to_string(e.row) + "." + std::to_string(e.head)
                + " is outside the captioner's heads");
        mask.data()[e.row * rows.heads + e.head] = e.factor;
    }
    return mask;
}

QString captionMaskText(const std::vector<CaptionMaskEntry>& entries, const Seq2SeqHeadRows& rows)
{
    QStringList parts;
    for (const CaptionMaskEntry& e : entries)
        parts << QStringLiteral("%1.H%2 ×%3")
                     .arg(QString::fromStdString(rows.rowName(e.row)))
                     .arg(e.head)
                     .arg(static_cast<double>(e.factor), 0, 'g', 3);
    return parts.join(", ");
}

} // namespace attn::ui
