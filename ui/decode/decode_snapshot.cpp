// SPDX-License-Identifier: MIT
#include "decode/decode_snapshot.h"

#include "attention_source/attention_source.h"
#include "core/error.h"

#include <cstring>

namespace attn::ui {

StepRowsPtr derivedStepRows(const AttentionSource& source, int64_t position)
{
    const int64_t heads = source.numHeads(), keys = source.numKeys();
    auto rows = std::make_shared<std::vector<Tensor>>();
    for (int64_t l = 0; l < source.numLayers(); ++l) {
        Tensor& layer = rows->emplace_back(Shape { heads, keys });
        for (int64_t h = 0; h < heads; ++h)
            std::memcpy(
                layer.data() + h * keys, source.rows(l, h, position, position + 1)->data(), sizeof(float) * keys);
    }
    return rows;
}

SnapshotPtr decodeSnapshot(const std::vector<DecodeStepPtr>& steps, const DecodeModelInfo& info, int64_t positions,
    std::shared_ptr<const AttentionSource> derived)
{
    if (positions < 1 || positions > static_cast<int64_t>(steps.size()))
        throw Error("decode snapshot: " + std::to_string(positions) + " positions requested, "
            + std::to_string(static_cast<int64_t>(steps.size())) + " decoded");
    const int64_t n = positions, heads = info.numHeads;
    std::vector<TokenChip> tokens;
    for (int64_t i = 0; i < n; ++i)
        tokens.push_back(steps[static_cast<size_t>(i)]->token);
    if (derived) return std::make_shared<const AttentionSnapshot>(std::move(tokens), std::move(derived));
    for (int64_t q = 0; q < n; ++q)
        if (static_cast<int64_t>(steps[static_cast<size_t>(q)]->attention.size()) != info.numLayers)
            throw Error("decode snapshot: position " + std::to_string(q)
                + " keeps no attention rows (they are derived) and no derived attention was given");
    std::vector<Tensor> layers;
    layers.reserve(static_cast<size_t>(info.numLayers));
    for (int64_t l = 0; l < info.numLayers; ++l) {
        Tensor t({ heads, n, n });
        for (int64_t q = 0; q < n; ++q) {
            const Tensor& row = steps[static_cast<size_t>(q)]->attention[static_cast<size_t>(l)];
            for (int64_t h = 0; h < heads; ++h)
                std::memcpy(t.data() + (h * n + q) * n, row.data() + h * (q + 1), sizeof(float) * (q + 1));
        }
        layers.push_back(std::move(t));
    }
    MaskSpec mask;
    mask.causal = true;
    mask.slidingWindow = info.slidingWindow;
    return std::make_shared<const AttentionSnapshot>(std::move(tokens), std::move(layers), info.numKvHeads, mask,
        std::vector<TokenChip> {}, AttentionSnapshot::Stats::Skip, // built ~25 times a second during Run
        info.layerWindows);
}

} // namespace attn::ui
