// SPDX-License-Identifier: MIT
#include "analysis/corpus_lines.h"

#include "core/error.h"

#include <fstream>

namespace attn {

std::vector<std::vector<int64_t>> readCorpusLines(
    const std::string& path, const Tokenizer& tokenizer, int64_t maxPositions, int64_t shard, int64_t shards)
{
    std::ifstream in(path);
    if (!in) throw Error(path, "cannot open the corpus");
    std::vector<std::vector<int64_t>> inputs;
    std::string line;
    int64_t index = 0;
    while (std::getline(in, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        if (index++ % shards != shard) continue;
        std::vector<int64_t> ids;
        for (const Token& t : tokenizer.encode(line, true))
            ids.push_back(t.id);
        // Longer lines are cut to the model's context, so one long line cannot stop a corpus run.
        if (static_cast<int64_t>(ids.size()) > maxPositions) ids.resize(static_cast<size_t>(maxPositions));
        inputs.push_back(std::move(ids));
    }
    return inputs;
}

} // namespace attn
