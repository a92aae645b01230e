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

void writeTimeline(QJsonObject& o, const WorkspaceTimeline& t)
{
    o["generated_ids"] = toJsonArray(t.generatedIds);
    QJsonArray forced;
    for (bool f : t.forced)
        forced.append(f);
    o["forced"] = forced;
}

/// `what` names the object in errors: "decode", "decode.branches[2]".
WorkspaceTimeline readTimeline(const QJsonObject& o, const std::string& source, const std::string& what)
{
    const JsonFields in(o, "workspace", source + " (" + what + ")");
    WorkspaceTimeline t;
    if (in.has("generated_ids")) t.generatedIds = in.integers("generated_ids");
    if (o.contains("forced")) {
        if (!o.value("forced").isArray())
            throw Error("workspace " + source + ": \"" + what + ".forced\" must be an array");
        for (const QJsonValue& v : o.value("forced").toArray()) {
            if (!v.isBool()) throw Error("workspace " + source + ": \"" + what + ".forced\" must hold true or false");
            t.forced.push_back(v.toBool());
        }
    }
    if (t.forced.size() != t.generatedIds.size())
        throw Error("workspace " + source + ": " + what + ".forced has " + std::to_string(t.forced.size())
            + " entries for " + std::to_string(t.generatedIds.size()) + " generated tokens");
    return t;
}

/// "token_range": {"query_begin", "query_end", "key_begin", "key_end"}, each end exclusive and -1 for the last token.
QJsonObject writeRange(const TokenRange& r)
{
    return QJsonObject { { "query_begin", static_cast<qint64>(r.query0) },
        { "query_end", static_cast<qint64>(r.query1) }, { "key_begin", static_cast<qint64>(r.key0) },
        { "key_end", static_cast<qint64>(r.key1) } };
}

TokenRange readRange(const QJsonValue& value, const std::string& source)
{
    if (!value.isObject()) throw Error("workspace " + source + ": \"token_range\" must be an object");
    const QJsonObject o = value.toObject();
    static const std::set<QString> keys { "query_begin", "query_end", "key_begin", "key_end" };
    for (const QString& key : o.keys())
        if (!keys.count(key))
            throw Error("workspace " + source + ": unknown key \"token_range." + key.toStdString() + "\"");
    const JsonFields in(o, "workspace", source + " (token_range)");
    TokenRange r;
    // Begins at 0 and ends at the last token where a key is left out; the views clamp the rest to their input.
    const auto span = [&](const char* begin, const char* end, int64_t& first, int64_t& last) {
        if (in.has(begin)) first = in.integer(begin);
        if (in.has(end)) last = in.integer(end);
        if (first < 0 || last < -1 || (last >= 0 && last <= first))
            throw Error("workspace " + source + ": token_range." + begin + " " + std::to_string(first) + " and ." + end
                + " " + std::to_string(last) + " are not a range (begin >= 0, end > begin or -1 for the last token)");
    };
    span("query_begin", "query_end", r.query0, r.query1);
    span("key_begin", "key_end", r.key0, r.key1);
    return r;
}

} // namespace

WorkspaceAblation workspaceAblation(const Ablation& ablation)
{
    WorkspaceAblation out;
    for (const HeadRef& h : ablation.heads)
        out.heads += (out.heads.empty() ? "" : ",") + std::to_string(h.layer) + "." + std::to_string(h.head);
    switch (ablation.mode) {
    case AblationMode::Zero:
        out.mode = "zero";
        break;
    case AblationMode::Mean:
        out.mode = "mean";
        break;
    case AblationMode::Scale:
        out.mode = "scale:" + QString::number(static_cast<double>(ablation.factor), 'g', 9).toStdString();
        break;
    }
    return out;
}

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
    o["token_range"] = writeRange(w.range);
    o["colormap"] = qs(colormapKey(w.colormap));
    o["scale"] = qs(scaleModeKey(w.heatmap.scale));
    o["exclude_first_token"] = w.heatmap.excludeFirstToken;
    o["show_mask"] = w.heatmap.showMask;
    o["metric"] = qs(metricKey(w.metric));
    QJsonObject d;
    d["prompt_text"] = qs(w.decode.promptText);
    d["prompt_ids"] = toJsonArray(w.decode.promptIds);
    writeTimeline(d, w.decode.current);
    QJsonArray branches;
    for (const WorkspaceTimeline& b : w.decode.branches) {
        QJsonObject branch;
        writeTimeline(branch, b);
        branches.append(branch);
    }
    d["branches"] = branches;
    d["temperature"] = static_cast<double>(w.decode.sampler.temperature);
    d["top_k"] = static_cast<qint64>(w.decode.sampler.topK);
    d["top_p"] = static_cast<double>(w.decode.sampler.topP);
    d["seed"] = static_cast<qint64>(w.decode.sampler.seed);
    o["decode"] = d;
    QJsonArray ablations;
    for (const WorkspaceAblation& a : w.ablations)
        ablations.append(QJsonObject { { "heads", qs(a.heads) }, { "mode", qs(a.mode) } });
    o["ablations"] = ablations;
    return QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString();
}

Workspace workspaceFromJson(const std::string& json, const std::string& source)
{
    static const std::set<QString> known { "format", "model", "input", "target", "attention", "tab", "layer", "head",
        "head_view_heads", "token_range", "colormap", "scale", "exclude_first_token", "show_mask", "metric", "decode",
        "ablations" };
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
    if (in.has("token_range")) w.range = readRange(object.value("token_range"), source);
    if (in.has("colormap")) w.colormap = colormapFromKey(in.string("colormap"));
    if (in.has("scale")) w.heatmap.scale = scaleModeFromKey(in.string("scale"));
    if (in.has("exclude_first_token")) w.heatmap.excludeFirstToken = in.boolean("exclude_first_token");
    if (in.has("show_mask")) w.heatmap.showMask = in.boolean("show_mask");
    if (in.has("metric")) w.metric = metricFromKey(in.string("metric"));
    if (object.contains("decode")) {
        if (!object.value("decode").isObject()) throw Error("workspace " + source + ": \"decode\" must be an object");
        static const std::set<QString> decodeKeys { "prompt_text", "prompt_ids", "generated_ids", "forced", "branches",
            "temperature", "top_k", "top_p", "seed" };
        const QJsonObject dobj = object.value("decode").toObject();
        for (const QString& key : dobj.keys())
            if (!decodeKeys.count(key))
                throw Error("workspace " + source + ": unknown key \"decode." + key.toStdString() + "\"");
        const JsonFields d(dobj, "workspace", source + " (decode)");
        WorkspaceDecode& out = w.decode;
        if (d.has("prompt_text")) out.promptText = d.string("prompt_text");
        if (d.has("prompt_ids")) out.promptIds = d.integers("prompt_ids");
        out.current = readTimeline(dobj, source, "decode");
        if (dobj.contains("branches")) {
            if (!dobj.value("branches").isArray())
                throw Error("workspace " + source + ": \"decode.branches\" must be an array");
            const QJsonArray branches = dobj.value("branches").toArray();
            for (qsizetype i = 0; i < branches.size(); ++i) {
                const std::string what = "decode.branches[" + std::to_string(i) + "]";
                if (!branches[i].isObject())
                    throw Error("workspace " + source + ": \"" + what + "\" must be an object");
                for (const QString& key : branches[i].toObject().keys())
                    if (key != "generated_ids" && key != "forced")
                        throw Error("workspace " + source + ": unknown key \"" + what + "." + key.toStdString() + "\"");
                out.branches.push_back(readTimeline(branches[i].toObject(), source, what));
            }
        }
        if ((!out.current.generatedIds.empty() || !out.branches.empty()) && out.promptIds.empty())
            throw Error("workspace " + source + ": decode has generated tokens but no prompt");
        if (d.has("temperature")) out.sampler.temperature = static_cast<float>(d.number("temperature"));
        if (d.has("top_k")) out.sampler.topK = d.integer("top_k");
        if (d.has("top_p")) out.sampler.topP = static_cast<float>(d.number("top_p"));
        if (d.has("seed")) out.sampler.seed = static_cast<uint64_t>(d.integer("seed"));
    }
    if (object.contains("ablations")) {
        if (!object.value("ablations").isArray())
            throw Error("workspace " + source + ": \"ablations\" must be an array");
        for (const QJsonValue& v : object.value("ablations").toArray()) {
            if (!v.isObject()) throw Error("workspace " + source + ": each of \"ablations\" must be an object");
            const QJsonObject a = v.toObject();
            for (const QString& key : a.keys())
                if (key != "heads" && key != "mode")
                    throw Error("workspace " + source + ": unknown key \"ablations." + key.toStdString() + "\"");
            const JsonFields fields(a, "workspace", source + " (ablations)");
            WorkspaceAblation out { fields.string("heads"), fields.string("mode") };
            Ablation check;
            try {
                parseAblationMode(out.mode, check);
            } catch (const Error& e) {
                throw Error("workspace " + source + ": " + e.what());
            }
            w.ablations.push_back(std::move(out));
        }
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
