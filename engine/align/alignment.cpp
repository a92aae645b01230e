// SPDX-License-Identifier: MIT
#include "align/alignment.h"

#include "core/error.h"
#include "core/input_file.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace attn {
namespace {

void expectMatrix(const Tensor& attention)
{
    if (attention.rank() != 2)
        throw Error("alignment: attention must be [target, source], got " + shapeToString(attention.shape()));
}

int64_t parseIndex(const std::string& text, const std::string& where)
{
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
        throw Error(where, "\"" + text.substr(0, 40) + "\" is not a word index");
    if (text.size() > 9) throw Error(where, "index " + text.substr(0, 40) + " is implausibly large");
    return std::stoll(text);
}

} // namespace

Links argmaxPerTarget(const Tensor& attention)
{
    expectMatrix(attention);
    const int64_t T = attention.dim(0), S = attention.dim(1);
    Links links;
    for (int64_t j = 0; S > 0 && j < T; ++j) {
        const float* row = attention.data() + j * S;
        links.insert({ std::max_element(row, row + S) - row, j });
    }
    return links;
}

Links argmaxPerSource(const Tensor& attention)
{
    expectMatrix(attention);
    const int64_t T = attention.dim(0), S = attention.dim(1);
    Links links;
    for (int64_t i = 0; T > 0 && i < S; ++i) {
        int64_t best = 0;
        for (int64_t j = 1; j < T; ++j)
            if (attention.data()[j * S + i] > attention.data()[best * S + i]) best = j;
        links.insert({ i, best });
    }
    return links;
}

Links intersectLinks(const Links& a, const Links& b)
{
    Links out;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
    return out;
}

Links growDiag(const Links& a, const Links& b, bool final)
{
    Links both;
    std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::inserter(both, both.end()));
    Links out = intersectLinks(a, b);
    std::set<int64_t> src, tgt;
    for (const Link& l : out) {
        src.insert(l.first);
        tgt.insert(l.second);
    }
    auto add = [&](const Link& l) {
        out.insert(l);
        src.insert(l.first);
        tgt.insert(l.second);
    };
    int64_t maxI = -1, maxJ = -1;
    for (const Link& l : both) {
        maxI = std::max(maxI, l.first);
        maxJ = std::max(maxJ, l.second);
    }
    // Koehn's sweep as Moses / NLTK (gdfa) run it: positions in (source, target) order, growing from links as soon
    // as they are added, neighbours in NLTK's order; the order decides which of two competing links wins.
    static constexpr int64_t kNeighbours[8][2]
        = { { -1, 0 }, { 0, -1 }, { 1, 0 }, { 0, 1 }, { -1, -1 }, { -1, 1 }, { 1, -1 }, { 1, 1 } };
    for (bool grown = true; grown;) {
        grown = false;
        for (int64_t i = 0; i <= maxI; ++i)
            for (int64_t j = 0; j <= maxJ; ++j) {
                if (!out.count({ i, j })) continue;
                for (const auto& d : kNeighbours) {
                    const Link n { i + d[0], j + d[1] };
                    if (both.count(n) && !out.count(n) && (!src.count(n.first) || !tgt.count(n.second))) {
                        add(n);
                        grown = true;
                    }
                }
            }
    }
    if (final)
        for (const Links* side : { &a, &b })
            for (const Link& l : *side)
                if (!src.count(l.first) || !tgt.count(l.second)) add(l);
    return out;
}

Links transposeLinks(const Links& links)
{
    Links out;
    for (const Link& l : links)
        out.insert({ l.second, l.first });
    return out;
}

Symmetrization parseSymmetrization(const std::string& name)
{
    if (name == "intersection") return Symmetrization::Intersection;
    if (name == "grow-diag") return Symmetrization::GrowDiag;
    if (name == "grow-diag-final") return Symmetrization::GrowDiagFinal;
    throw Error("symmetrization \"" + name + "\" is not intersection, grow-diag or grow-diag-final");
}

Links symmetrize(const Links& forward, const Links& reverse, Symmetrization rule)
{
    if (rule == Symmetrization::Intersection) return intersectLinks(forward, reverse);
    return growDiag(forward, reverse, rule == Symmetrization::GrowDiagFinal);
}

void expectLinksWithin(const Links& links, int64_t sourceWords, int64_t targetWords, const std::string& where)
{
    for (const Link& l : links)
        if (l.first < 0 || l.first >= sourceWords || l.second < 0 || l.second >= targetWords)
            throw Error(where,
                "link " + std::to_string(l.first) + "-" + std::to_string(l.second) + " is outside "
                    + std::to_string(sourceWords) + " source x " + std::to_string(targetWords) + " target words");
}

std::string formatPharaoh(const Links& links)
{
    std::string out;
    for (const Link& l : links)
        out += (out.empty() ? "" : " ") + std::to_string(l.first) + "-" + std::to_string(l.second);
    return out;
}

GoldAlignment parsePharaohLine(const std::string& line, const std::string& where)
{
    GoldAlignment g;
    std::istringstream in(line);
    for (std::string item; in >> item;) {
        const size_t q = item.find('?');
        const bool possible
            = q != std::string::npos || (item.size() > 2 && item.compare(item.size() - 2, 2, "-P") == 0);
        std::string body = item;
        if (item.size() > 2
            && (item.compare(item.size() - 2, 2, "-P") == 0 || item.compare(item.size() - 2, 2, "-S") == 0))
            body = item.substr(0, item.size() - 2);
        const size_t sep = q != std::string::npos ? q : body.find('-');
        if (sep == std::string::npos) throw Error(where, "link \"" + item + "\" is not i-j or i?j");
        const Link link { parseIndex(body.substr(0, sep), where), parseIndex(body.substr(sep + 1), where) };
        g.possible.insert(link);
        if (!possible) g.sure.insert(link);
    }
    return g;
}

std::vector<GoldAlignment> readGoldAlignments(const std::string& path)
{
    std::istringstream in(readInputFile(path, file_caps::kText, "gold alignment file"));
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    auto isNaacl = [](const std::string& line) {
        std::istringstream words(line);
        int fields = 0;
        for (std::string w; words >> w;)
            ++fields;
        return fields >= 3 && fields <= 5 && line.find_first_of("-?") == std::string::npos;
    };
    const auto first = std::find_if(lines.begin(), lines.end(),
        [](const std::string& l) { return l.find_first_not_of(" \t\r") != std::string::npos; });
    std::vector<GoldAlignment> gold;
    if (first == lines.end() || !isNaacl(*first)) {
        for (size_t k = 0; k < lines.size(); ++k)
            gold.push_back(parsePharaohLine(lines[k], path + ":" + std::to_string(k + 1)));
        return gold;
    }
    for (size_t k = 0; k < lines.size(); ++k) {
        const std::string where = path + ":" + std::to_string(k + 1);
        std::istringstream words(lines[k]);
        std::vector<std::string> f;
        for (std::string w; words >> w;)
            f.push_back(w);
        if (f.empty()) continue;
        if (f.size() < 3 || f.size() > 5)
            throw Error(where, "NAACL line needs: sentence source target [S|P] [confidence]");
        const int64_t sentence = parseIndex(f[0], where), i = parseIndex(f[1], where), j = parseIndex(f[2], where);
        const std::string kind = f.size() >= 4 ? f[3] : "S";
        if (kind != "S" && kind != "P") throw Error(where, "link kind \"" + kind + "\" is not S or P");
        if (sentence < 1) throw Error(where, "sentence numbers start at 1");
        // Every sentence with a link has a line of its own, so a number beyond the line count is a damaged file
        // (and would otherwise size the table).
        if (static_cast<size_t>(sentence) > lines.size())
            throw Error(where,
                "sentence number " + std::to_string(sentence) + " is larger than the file's "
                    + std::to_string(lines.size()) + " lines");
        if (gold.size() < static_cast<size_t>(sentence)) gold.resize(static_cast<size_t>(sentence));
        if (i == 0 || j == 0) continue; // NULL links do not count in AER
        GoldAlignment& g = gold[static_cast<size_t>(sentence - 1)];
        g.possible.insert({ i - 1, j - 1 });
        if (kind == "S") g.sure.insert({ i - 1, j - 1 });
    }
    return gold;
}

AlignmentScore scoreAlignments(const std::vector<Links>& predicted, const std::vector<GoldAlignment>& gold)
{
    if (predicted.size() != gold.size())
        throw Error("alignment scoring: " + std::to_string(predicted.size()) + " predicted sentences but "
            + std::to_string(gold.size()) + " gold sentences");
    AlignmentScore s;
    for (size_t k = 0; k < gold.size(); ++k) {
        s.predicted += static_cast<int64_t>(predicted[k].size());
        s.sure += static_cast<int64_t>(gold[k].sure.size());
        s.hitsSure += static_cast<int64_t>(intersectLinks(predicted[k], gold[k].sure).size());
        s.hitsPossible += static_cast<int64_t>(intersectLinks(predicted[k], gold[k].possible).size());
    }
    s.precision = s.predicted ? static_cast<double>(s.hitsPossible) / static_cast<double>(s.predicted) : 0.0;
    s.recall = s.sure ? static_cast<double>(s.hitsSure) / static_cast<double>(s.sure) : 0.0;
    const int64_t denominator = s.predicted + s.sure;
    s.aer
        = denominator ? 1.0 - static_cast<double>(s.hitsSure + s.hitsPossible) / static_cast<double>(denominator) : 0.0;
    return s;
}

} // namespace attn
