// SPDX-License-Identifier: MIT
#include "analysis/sentence_pairs.h"

#include "core/error.h"

#include <fstream>

namespace attn {
namespace {

/// The ids of one side, checked against the positions the model has (0: no limit).
std::vector<int64_t> sideIds(const AlignedSide& side, int64_t limit, const std::string& where, const char* what)
{
    if (limit > 0 && static_cast<int64_t>(side.ids.size()) > limit)
        throw Error(where,
            std::string("the ") + what + " has " + std::to_string(side.ids.size()) + " tokens, more than the model's "
                + std::to_string(limit) + " positions");
    return side.ids;
}

} // namespace

std::vector<SentencePair> readSentencePairs(const std::string& path, const Translator& translator)
{
    std::ifstream in(path);
    if (!in) throw Error(path, "cannot be read");
    const ModelConfig& c = translator.transformer() ? translator.transformer()->config() : ModelConfig {};
    const int64_t targetLimit = c.maxTargetPositions > 0 ? c.maxTargetPositions : c.maxPositions;
    std::vector<SentencePair> pairs;
    std::string line;
    for (int64_t number = 1; std::getline(in, line); ++number) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        const std::string where = path + ":" + std::to_string(number);
        const size_t tab = line.find('\t');
        if (tab == std::string::npos)
            throw Error(where, "no tab between the source sentence and its reference translation");
        const size_t end = line.find('\t', tab + 1);
        const std::string source = line.substr(0, tab);
        const std::string reference = line.substr(tab + 1, end == std::string::npos ? end : end - tab - 1);
        if (source.empty() || reference.empty()) throw Error(where, "an empty source or reference translation");
        try {
            pairs.push_back({ sideIds(translator.source(source), c.maxPositions, where, "source"),
                sideIds(translator.target(reference), targetLimit, where, "reference") });
        } catch (const Error& e) {
            if (std::string(e.what()).starts_with(where)) throw;
            throw Error(where, e.what());
        }
    }
    if (pairs.empty()) throw Error(path, "has no sentence pair (one a line: source, tab, reference translation)");
    return pairs;
}

} // namespace attn
