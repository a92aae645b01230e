// SPDX-License-Identifier: MIT
#include "export/figure_recipe.h"

#include "core/error.h"
#include "core/input_file.h"
#include "export/json_fields.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <array>
#include <fstream>
#include <set>
#include <utility>

namespace attn::ui {

namespace {

template <typename T, size_t N>
T fromKey(const std::array<std::pair<T, const char*>, N>& table, const std::string& key, const char* what)
{
    std::string known;
    for (const auto& [value, name] : table) {
        if (key == name) return value;
        known += (known.empty() ? "" : "|") + std::string(name);
    }
    throw Error("unknown " + std::string(what) + " '" + key + "' (expected " + known + ")");
}

template <typename T, size_t N> std::string toKey(const std::array<std::pair<T, const char*>, N>& table, T value)
{
    for (const auto& [v, name] : table)
        if (v == value) return name;
    return {};
}

const std::array<std::pair<FigureView, const char*>, 7> kViews { { { FigureView::Heatmap, "heatmap" },
    { FigureView::Grid, "grid" }, { FigureView::HeadView, "headview" }, { FigureView::Stats, "stats" },
    { FigureView::Decode, "decode" }, { FigureView::Vision, "vision" }, { FigureView::Caption, "caption" } } };
const std::array<std::pair<Colormap, const char*>, 4> kColormaps { { { Colormap::Viridis, "viridis" },
    { Colormap::Magma, "magma" }, { Colormap::Grayscale, "grayscale" }, { Colormap::Diverging, "diverging" } } };
const std::array<std::pair<ScaleMode, const char*>, 3> kScales { { { ScaleMode::Linear, "linear" },
    { ScaleMode::Log, "log10" }, { ScaleMode::RowNormalized, "row" } } };
const std::array<std::pair<StatsView::Metric, const char*>, 6> kMetrics { { { StatsView::Entropy, "entropy" },
    { StatsView::NormalizedEntropy, "normalized-entropy" }, { StatsView::MeanDistance, "mean-distance" },
    { StatsView::SinkMass, "sink-mass" }, { StatsView::PreviousToken, "previous-token" },
    { StatsView::Diagonal, "diagonal" } } };

} // namespace

std::string figureViewName(FigureView view)
{
    return toKey(kViews, view);
}
FigureView figureViewFromName(const std::string& name)
{
    return fromKey(kViews, name, "view");
}
std::string colormapKey(Colormap map)
{
    return toKey(kColormaps, map);
}
Colormap colormapFromKey(const std::string& key)
{
    return fromKey(kColormaps, key, "colormap");
}
std::string scaleModeKey(ScaleMode mode)
{
    return toKey(kScales, mode);
}
ScaleMode scaleModeFromKey(const std::string& key)
{
    return fromKey(kScales, key, "scale");
}
std::string metricKey(StatsView::Metric metric)
{
    return toKey(kMetrics, metric);
}
StatsView::Metric metricFromKey(const std::string& key)
{
    return fromKey(kMetrics, key, "metric");
}

std::string attentionKindKey(AttentionKind kind)
{
    switch (kind) {
    case AttentionKind::Self:
        return "self";
    case AttentionKind::EncoderSelf:
        return "encoder";
    case AttentionKind::DecoderSelf:
        return "decoder";
    case AttentionKind::Cross:
        return "cross";
    }
    return "self";
}

AttentionKind attentionKindFromKey(const std::string& key)
{
    for (AttentionKind k :
        { AttentionKind::Self, AttentionKind::EncoderSelf, AttentionKind::DecoderSelf, AttentionKind::Cross })
        if (attentionKindKey(k) == key) return k;
    throw Error("unknown attention \"" + key + "\" (self, encoder, decoder, cross)");
}

std::string recipeToJson(const FigureRecipe& r)
{
    QJsonObject o;
    o["format"] = "attnscope-view-recipe/1";
    o["model"] = QString::fromStdString(r.model);
    if (!r.prompt.empty()) o["prompt"] = QString::fromStdString(r.prompt);
    if (!r.tokens.empty()) o["tokens"] = toJsonArray(r.tokens);
    if (!r.text.empty()) o["text"] = QString::fromStdString(r.text);
    if (!r.target.empty()) o["target"] = QString::fromStdString(r.target);
    if (r.attention != AttentionKind::Self) o["attention"] = QString::fromStdString(attentionKindKey(r.attention));
    o["view"] = QString::fromStdString(figureViewName(r.view));
    o["layer"] = static_cast<qint64>(r.layer);
    o["head"] = static_cast<qint64>(r.head);
    if (!r.heads.empty()) o["heads"] = toJsonArray(r.heads);
    o["selected_token"] = static_cast<qint64>(r.selectedToken);
    o["colormap"] = QString::fromStdString(colormapKey(r.colormap));
    o["scale"] = QString::fromStdString(scaleModeKey(r.options.scale));
    o["exclude_first_token"] = r.options.excludeFirstToken;
    o["show_mask"] = r.options.showMask;
    o["metric"] = QString::fromStdString(metricKey(r.metric));
    if (r.view == FigureView::Caption) { // the overlay keys of the vision view apply to the caption strip
        o["image"] = QString::fromStdString(r.image);
        o["opacity"] = r.vision.opacity;
        o["smooth"] = r.vision.smooth;
    }
    if (r.view == FigureView::Vision) { // only vision recipes carry these keys
        o["image"] = QString::fromStdString(r.image);
        o["vision_panel"] = QString::fromStdString(visionPanelName(r.vision.panel));
        o["fusion"] = QString::fromStdString(headFusionName(r.vision.rollout.fusion));
        o["discard"] = r.vision.rollout.discardRatio;
        o["opacity"] = r.vision.opacity;
        o["smooth"] = r.vision.smooth;
        o["patch_grid"] = r.vision.showGrid;
    }
    o["width"] = r.width;
    o["height"] = r.height;
    o["dpi"] = r.dpi;
    // QJsonObject sorts keys, so the same recipe always gives the same file.
    return QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString();
}

FigureRecipe recipeFromJson(const std::string& json, const std::string& source)
{
    static const std::set<QString> known { "format", "model", "prompt", "tokens", "text", "target", "attention", "view",
        "layer", "head", "heads", "selected_token", "colormap", "scale", "exclude_first_token", "show_mask", "metric",
        "width", "height", "dpi", "image", "vision_panel", "fusion", "discard", "opacity", "smooth", "patch_grid" };
    const JsonFields in(parseStrictObject(json, "recipe", source, known), "recipe", source);
    if (in.has("format") && in.string("format") != "attnscope-view-recipe/1")
        throw Error("recipe " + source + ": unsupported format \"" + in.string("format") + "\"");
    FigureRecipe r;
    if (in.has("model")) r.model = in.string("model");
    if (in.has("prompt")) r.prompt = in.string("prompt");
    if (in.has("tokens")) r.tokens = in.integers("tokens");
    if (in.has("text")) r.text = in.string("text");
    if (in.has("target")) r.target = in.string("target");
    if (in.has("attention")) r.attention = attentionKindFromKey(in.string("attention"));
    if (in.has("view")) r.view = figureViewFromName(in.string("view"));
    if (in.has("layer")) r.layer = in.integer("layer");
    if (in.has("head")) r.head = in.integer("head");
    if (in.has("heads")) r.heads = in.integers("heads");
    if (in.has("selected_token")) r.selectedToken = in.integer("selected_token");
    if (in.has("colormap")) r.colormap = colormapFromKey(in.string("colormap"));
    if (in.has("scale")) r.options.scale = scaleModeFromKey(in.string("scale"));
    if (in.has("exclude_first_token")) r.options.excludeFirstToken = in.boolean("exclude_first_token");
    if (in.has("show_mask")) r.options.showMask = in.boolean("show_mask");
    if (in.has("metric")) r.metric = metricFromKey(in.string("metric"));
    if (in.has("image")) r.image = in.string("image");
    if (in.has("vision_panel")) r.vision.panel = visionPanelFromName(in.string("vision_panel"));
    if (in.has("fusion")) r.vision.rollout.fusion = parseHeadFusion(in.string("fusion"));
    if (in.has("discard")) r.vision.rollout.discardRatio = in.number("discard");
    if (in.has("opacity")) r.vision.opacity = in.number("opacity");
    if (in.has("smooth")) r.vision.smooth = in.boolean("smooth");
    if (in.has("patch_grid")) r.vision.showGrid = in.boolean("patch_grid");
    if (in.has("width")) r.width = static_cast<int>(in.integer("width"));
    if (in.has("height")) r.height = static_cast<int>(in.integer("height"));
    if (in.has("dpi")) r.dpi = static_cast<int>(in.integer("dpi"));
    return r;
}

FigureRecipe readRecipeFile(const std::string& path)
{
    // A recipe is a few hundred bytes; only a regular file under the config cap is read (never a FIFO or a device).
    return recipeFromJson(readInputFile(path, file_caps::kConfigJson, "view recipe"), path);
}

void writeRecipeFile(const std::string& path, const FigureRecipe& recipe)
{
    std::ofstream out(path, std::ios::binary);
    out << recipeToJson(recipe);
    if (!out) throw Error("recipe " + path + ": cannot write the file");
}

} // namespace attn::ui
