// SPDX-License-Identifier: MIT
#include "export/figure_data.h"

#include "core/error.h"
#include "core/npy.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>

namespace attn::ui {

namespace {

std::vector<int64_t> chosenHeads(const FigureRecipe& r)
{
    const std::set<int64_t> heads
        = r.heads.empty() ? std::set<int64_t> { r.head } : std::set<int64_t>(r.heads.begin(), r.heads.end());
    return { heads.begin(), heads.end() };
}

// Float32 values printed so that they read back to the same float.
std::string number(double v)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.9g", v);
    return buffer;
}

std::string quoted(const std::string& text)
{
    if (text.find_first_of(",\"\r\n") == std::string::npos && !text.empty() && text.front() != ' '
        && text.back() != ' ')
        return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

// Cross-attention labels its rows with the target (query) tokens and its columns with the source (key) tokens.
const std::string& queryText(const AttentionSnapshot& s, int64_t i)
{
    return s.queryTokens()[static_cast<size_t>(i)].text;
}

const std::string& keyText(const AttentionSnapshot& s, int64_t j)
{
    return s.tokens()[static_cast<size_t>(j)].text;
}

void writeLong(std::ostream& out, const AttentionSnapshot& s, const std::vector<std::pair<int64_t, int64_t>>& heads)
{
    out << "layer,head,query,key,query_token,key_token,weight\n";
    const int64_t q = s.numQueries(), k = s.numKeys();
    for (const auto& [layer, head] : heads) {
        const auto rows = s.rows(layer, head, 0, q); // a long input's source computes them now
        const float* p = rows->data();
        for (int64_t i = 0; i < q; ++i)
            for (int64_t j = 0; j < k; ++j)
                out << layer << ',' << head << ',' << i << ',' << j << ',' << quoted(queryText(s, i)) << ','
                    << quoted(keyText(s, j)) << ',' << number(p[i * k + j]) << '\n';
    }
}

} // namespace

Tensor figureData(const AttentionSnapshot& s, const FigureRecipe& r)
{
    const int64_t q = s.numQueries(), k = s.numKeys();
    switch (r.view) {
    case FigureView::Heatmap: // whole rows, which a long input's source derives on request
        return *s.rows(r.layer, r.head, 0, q);
    case FigureView::HeadView: {
        const std::vector<int64_t> heads = chosenHeads(r);
        std::vector<float> values;
        for (int64_t h : heads) {
            const auto rows = s.rows(r.layer, h, 0, q);
            values.insert(values.end(), rows->data(), rows->data() + q * k);
        }
        return Tensor({ static_cast<int64_t>(heads.size()), q, k }, std::move(values));
    }
    case FigureView::Grid: {
        std::vector<float> values;
        for (int64_t l = 0; l < s.numLayers(); ++l)
            values.insert(values.end(), s.layer(l).data(), s.layer(l).data() + s.layer(l).numel());
        return Tensor({ s.numLayers(), s.numHeads(), q, k }, std::move(values));
    }
    case FigureView::Stats: {
        std::vector<float> values;
        for (int64_t l = 0; l < s.numLayers(); ++l)
            for (int64_t h = 0; h < s.numHeads(); ++h)
                for (int m = 0; m < StatsView::MetricCount; ++m)
                    values.push_back(
                        static_cast<float>(StatsView::metricValue(s.stats(l, h), static_cast<StatsView::Metric>(m))));
        return Tensor({ s.numLayers(), s.numHeads(), StatsView::MetricCount }, std::move(values));
    }
    case FigureView::Decode:
    case FigureView::Vision:
    case FigureView::Caption:
        break;
    }
    throw Error("export: the " + figureViewName(r.view)
        + " view has no data export here; use `attnscope-cli generate` / `attention` or the GUI");
}

void writeFigureNpy(const std::string& path, const AttentionSnapshot& snapshot, const FigureRecipe& recipe)
{
    writeNpy(path, figureData(snapshot, recipe));
}

void writeFigureCsv(const std::string& path, const AttentionSnapshot& s, const FigureRecipe& r)
{
    const Tensor data = figureData(s, r); // validates the recipe against the snapshot first
    std::ofstream out(path, std::ios::binary);
    if (!out) throw Error("export " + path + ": cannot write the CSV file");
    const int64_t k = s.numKeys();
    switch (r.view) {
    case FigureView::Heatmap:
        // Labels are "position:token": a text alone repeats (" the" several times) and cannot name its column.
        out << "query\\key";
        for (int64_t j = 0; j < k; ++j)
            out << ',' << quoted(std::to_string(j) + ":" + keyText(s, j));
        out << '\n';
        for (int64_t i = 0; i < s.numQueries(); ++i) {
            out << quoted(std::to_string(i) + ":" + queryText(s, i));
            for (int64_t j = 0; j < k; ++j)
                out << ',' << number(data.data()[i * k + j]);
            out << '\n';
        }
        break;
    case FigureView::HeadView:
    case FigureView::Grid: {
        std::vector<std::pair<int64_t, int64_t>> heads;
        if (r.view == FigureView::HeadView)
            for (int64_t h : chosenHeads(r))
                heads.emplace_back(r.layer, h);
        else
            for (int64_t l = 0; l < s.numLayers(); ++l)
                for (int64_t h = 0; h < s.numHeads(); ++h)
                    heads.emplace_back(l, h);
        writeLong(out, s, heads);
        break;
    }
    case FigureView::Stats:
        out << "layer,head,kv_head";
        for (int m = 0; m < StatsView::MetricCount; ++m)
            out << ',' << metricKey(static_cast<StatsView::Metric>(m));
        out << ",roles\n";
        for (int64_t l = 0; l < s.numLayers(); ++l)
            for (int64_t h = 0; h < s.numHeads(); ++h) {
                out << l << ',' << h << ',' << s.kvHeadOf(h);
                for (int m = 0; m < StatsView::MetricCount; ++m)
                    out << ',' << number(data.data()[(l * s.numHeads() + h) * StatsView::MetricCount + m]);
                out << ',' << quoted(headRoleNames(classifyHead(s.stats(l, h)))) << '\n';
            }
        break;
    case FigureView::Decode:
    case FigureView::Vision:
    case FigureView::Caption:
        break;
    }
    if (!out) throw Error("export " + path + ": writing the CSV file failed");
}

} // namespace attn::ui
