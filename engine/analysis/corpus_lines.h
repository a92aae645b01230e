// SPDX-License-Identifier: MIT
#pragma once
// A corpus as the experiment commands and the GUI read it: one input per non-empty line of a text file.
#include "tokenizer/tokenizer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

/// The non-empty lines of the text file at `path`, each encoded with the tokenizer's special tokens (BOS) and cut to
/// `maxPositions` tokens, of shard I/N (the lines whose index among the non-empty lines is I modulo N). Throws Error
/// naming the file when it cannot be read.
std::vector<std::vector<int64_t>> readCorpusLines(
    const std::string& path, const Tokenizer& tokenizer, int64_t maxPositions, int64_t shard = 0, int64_t shards = 1);

} // namespace attn
