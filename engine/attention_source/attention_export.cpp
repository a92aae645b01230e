// SPDX-License-Identifier: MIT
#include "attention_source/attention_export.h"

#include "core/error.h"
#include "core/npy.h"

#include <algorithm>
#include <filesystem>

namespace attn {
namespace {

// Each written piece is at most this many floats (4 MiB), whatever the selection.
constexpr int64_t kPieceFloats = int64_t(1) << 20;

Shape layerShape(const AttentionSelection& s)
{
    return { static_cast<int64_t>(s.heads.size()), s.q1 - s.q0, s.k1 - s.k0 };
}

} // namespace

AttentionSelection wholeSelection(const AttentionSource& source)
{
    AttentionSelection s;
    for (int64_t l = 0; l < source.numLayers(); ++l)
        s.layers.push_back(l);
    for (int64_t h = 0; h < source.numHeads(); ++h)
        s.heads.push_back(h);
    s.q1 = source.numQueries();
    s.k1 = source.numKeys();
    return s;
}

void checkSelection(const AttentionSource& source, const AttentionSelection& s)
{
    for (const int64_t l : s.layers)
        if (l < 0 || l >= source.numLayers())
            throw Error("layer " + std::to_string(l) + " is outside the model's " + std::to_string(source.numLayers())
                + " layers");
    for (const int64_t h : s.heads)
        if (h < 0 || h >= source.numHeads())
            throw Error("head " + std::to_string(h) + " is outside the model's " + std::to_string(source.numHeads())
                + " heads");
    if (s.layers.empty() || s.heads.empty()) throw Error("the attention selection has no layer or no head");
    const auto checkRange = [](const char* what, int64_t a, int64_t b, int64_t n) {
        if (a < 0 || b <= a || b > n)
            throw Error(std::string(what) + " " + std::to_string(a) + ":" + std::to_string(b) + " is not a non-empty "
                + "range within 0:" + std::to_string(n));
    };
    checkRange("rows", s.q0, s.q1, source.numQueries());
    checkRange("columns", s.k0, s.k1, source.numKeys());
}

uint64_t attentionExportBytes(const AttentionSelection& s)
{
    return static_cast<uint64_t>(s.layers.size()) * NpyFloatWriter::fileBytes(layerShape(s));
}

std::string attentionFileName(int64_t layer)
{
    return "attn.L" + std::to_string(layer) + ".npy";
}

std::vector<std::string> exportAttention(const AttentionSource& source, const AttentionSelection& s,
    const std::string& dir, const std::function<void(int64_t layer)>& layerDone)
{
    checkSelection(source, s);
    const int64_t cols = s.k1 - s.k0;
    const int64_t blockRows = std::max<int64_t>(1, kPieceFloats / cols);
    std::vector<std::string> names;
    for (const int64_t l : s.layers) {
        names.push_back(attentionFileName(l));
        NpyFloatWriter out((std::filesystem::path(dir) / names.back()).string(), layerShape(s));
        for (const int64_t h : s.heads)
            for (int64_t r = s.q0; r < s.q1; r += blockRows) {
                const auto tile = source.tile(l, TileRange { h, r, std::min(s.q1, r + blockRows), s.k0, s.k1 });
                out.write(tile->data(), tile->numel());
            }
        out.finish();
        if (layerDone) layerDone(l);
    }
    return names;
}

} // namespace attn
