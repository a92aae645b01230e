// SPDX-License-Identifier: MIT
#include "align/gold_match.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace attn {
namespace {

namespace fs = std::filesystem;

// Corpus files are read line by line up to this size: a gold file's neighbours are text, not models.
constexpr std::uintmax_t kMaxCorpusBytes = std::uintmax_t(64) << 20;

std::string joined(const std::vector<std::string>& words)
{
    std::string out;
    for (const std::string& w : words)
        out += (out.empty() ? "" : " ") + w;
    return out;
}

std::string normalized(const std::string& line)
{
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string w; in >> w;)
        words.push_back(w);
    return joined(words);
}

/// The 0-based line of a corpus file beside the gold file (same stem, another extension) equal to `text`.
std::optional<int64_t> corpusLine(const fs::path& gold, const std::string& text)
{
    std::error_code ec;
    for (fs::directory_iterator it(gold.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
        const fs::path& p = it->path();
        if (p == gold || p.stem() != gold.stem() || !it->is_regular_file(ec) || it->file_size(ec) > kMaxCorpusBytes)
            continue;
        std::ifstream in(p);
        int64_t n = 0;
        for (std::string line; std::getline(in, line); ++n)
            if (normalized(line) == text) return n;
    }
    return std::nullopt;
}

} // namespace

std::optional<GoldMismatch> checkGoldSentence(const std::string& goldPath, int64_t sentence, const GoldAlignment& gold,
    const std::vector<std::string>& sourceWords, const std::vector<std::string>& targetWords, bool targetComplete)
{
    const std::optional<int64_t> line = corpusLine(fs::path(goldPath), normalized(joined(sourceWords)));
    if (line && *line != sentence)
        return GoldMismatch { "the shown source is sentence " + std::to_string(*line) + " of the corpus beside "
                                  + fs::path(goldPath).filename().string() + ", not sentence "
                                  + std::to_string(sentence),
            line };
    for (const Links* links : { &gold.sure, &gold.possible })
        for (const auto& [i, j] : *links)
            if (i >= static_cast<int64_t>(sourceWords.size())
                || (targetComplete && j >= static_cast<int64_t>(targetWords.size())))
                return GoldMismatch { "gold sentence " + std::to_string(sentence) + " links source word "
                                          + std::to_string(i) + " to target word " + std::to_string(j) + ", but the shown pair has "
                                          + std::to_string(sourceWords.size()) + " source and "
                                          + std::to_string(targetWords.size()) + " target words: is it the right sentence?",
                    line };
    return std::nullopt;
}

} // namespace attn
