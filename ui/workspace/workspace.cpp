// SPDX-License-Identifier: MIT
#include "workspace/workspace.h"

#include "core/error.h"
#include "core/input_file.h"
#include "export/figure_recipe.h"
#include "export/json_fields.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <fstream>

namespace attn::ui {
namespace {

constexpr const char* kFormat = "attnscope-workspace/1";
// A workspace is a few kilobytes; a larger file is not one (and is not read whole into memory).
constexpr uint64_t kMaxBytes = 16u << 20;

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

std::string workspaceToJson(const Workspace& w)
{
    QJsonObject o;
    o["format"] = kFormat;
    o["model"] = qs(w.model);
    o["input"] = qs(w.input);
    o["target"] = qs(w.target);
    o["attention"] = qs(w.attention);
    o["tab"] = qs(w.tab);
    o["layer"] = static_cast<qint64>(w.layer);
    o["head"] = static_cast<qint64>(w.head);
    o["head_view_heads"] = toJsonArray(w.headViewHeads);
    o["colormap"] = qs(colormapKey(w.colormap));
    o["scale"] = qs(scaleModeKey(w.heatmap.scale));
    o["exclude_first_token"] = w.heatmap.excludeFirstToken;
    o["show_mask"] = w.heatmap.showMask;
    o["metric"] = qs(metricKey(w.metric));
    QJsonObject d;
    d["prompt_text"] = qs(w.decode.promptText);
    d["prompt_ids"] = toJsonArray(w.decode.promptIds);
    d["generated_ids"] = toJsonArray(w.decode.generatedIds);
    QJsonArray forced;
    for (bool f : w.decode.forced)
        forced.append(f);
    d["forced"] = forced;
    d["temperature"] = static_cast<double>(w.decode.sampler.temperature);
    d["top_k"] = static_cast<qint64>(w.decode.sampler.topK);
    d["top_p"] = static_cast<double>(w.decode.sampler.topP);
    d["seed"] = static_cast<qint64>(w.decode.sampler.seed);
    o["decode"] = d;
    return QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString();
}

Workspace workspaceFromJson(const std::string& json, const std::string& source)
{
    static const std::set<QString> known { "format", "model", "input", "target", "attention", "tab", "layer", "head",
        "head_view_heads", "colormap", "scale", "exclude_first_token", "show_mask", "metric", "decode" };
    const QJsonObject object = parseStrictObject(json, "workspace", source, known);
    const JsonFields in(object, "workspace", source);
    if (!in.has("format") || in.string("format") != kFormat)
        throw Error("workspace " + source + ": not an AttnScope workspace (\"format\" must be \"" + kFormat + "\")");
    Workspace w;
    w.model = in.string("model");
    if (in.has("input")) w.input = in.string("input");
    if (in.has("target")) w.target = in.string("target");
    if (in.has("attention")) w.attention = attentionKindKey(attentionKindFromKey(in.string("attention")));
    if (in.has("tab")) w.tab = in.string("tab");
    if (in.has("layer")) w.layer = in.integer("layer");
    if (in.has("head")) w.head = in.integer("head");
    if (in.has("head_view_heads")) w.headViewHeads = in.integers("head_view_heads");
    if (in.has("colormap")) w.colormap = colormapFromKey(in.string("colormap"));
    if (in.has("scale")) w.heatmap.scale = scaleModeFromKey(in.string("scale"));
    if (in.has("exclude_first_token")) w.heatmap.excludeFirstToken = in.boolean("exclude_first_token");
    if (in.has("show_mask")) w.heatmap.showMask = in.boolean("show_mask");
    if (in.has("metric")) w.metric = metricFromKey(in.string("metric"));
    if (object.contains("decode")) {
        if (!object.value("decode").isObject()) throw Error("workspace " + source + ": \"decode\" must be an object");
        static const std::set<QString> decodeKeys { "prompt_text", "prompt_ids", "generated_ids", "forced",
            "temperature", "top_k", "top_p", "seed" };
        const QJsonObject dobj = object.value("decode").toObject();
        for (const QString& key : dobj.keys())
            if (!decodeKeys.count(key))
                throw Error("workspace " + source + ": unknown key \"decode." + key.toStdString() + "\"");
        const JsonFields d(dobj, "workspace", source + " (decode)");
        WorkspaceDecode& out = w.decode;
        if (d.has("prompt_text")) out.promptText = d.string("prompt_text");
        if (d.has("prompt_ids")) out.promptIds = d.integers("prompt_ids");
        if (d.has("generated_ids")) out.generatedIds = d.integers("generated_ids");
        if (dobj.contains("forced")) {
            if (!dobj.value("forced").isArray()) throw Error("workspace " + source + ": \"decode.forced\" must be an array");
            for (const QJsonValue& v : dobj.value("forced").toArray()) {
                if (!v.isBool()) throw Error("workspace " + source + ": \"decode.forced\" must hold true or false");
                out.forced.push_back(v.toBool());
            }
        }
        if (out.forced.size() != out.generatedIds.size())
            throw Error("workspace " + source + ": decode.forced has " + std::to_string(out.forced.size())
                + " entries for " + std::to_string(out.generatedIds.size()) + " generated tokens");
        if (!out.generatedIds.empty() && out.promptIds.empty())
            throw Error("workspace " + source + ": decode has generated tokens but no prompt");
        if (d.has("temperature")) out.sampler.temperature = static_cast<float>(d.number("temperature"));
        if (d.has("top_k")) out.sampler.topK = d.integer("top_k");
        if (d.has("top_p")) out.sampler.topP = static_cast<float>(d.number("top_p"));
        if (d.has("seed")) out.sampler.seed = static_cast<uint64_t>(d.integer("seed"));
    }
    return w;
}

Workspace readWorkspaceFile(const std::string& path)
{
    return workspaceFromJson(readInputFile(path, kMaxBytes, "workspace"), path);
}

void writeWorkspaceFile(const std::string& path, const Workspace& workspace)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << workspaceToJson(workspace);
    if (!out) throw Error("workspace " + path + ": cannot be written");
}

} // namespace attn::ui
