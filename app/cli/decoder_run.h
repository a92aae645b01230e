// SPDX-License-Identifier: MIT
#pragma once
// What the experiment commands (ablate, patch, atlas, prune) share: a decoder model, its tokenizer and the backend.
#include "cli/args.h"
#include "model/model.h"
#include "model/model_source.h"
#include "tokenizer/tokenizer.h"

#include <memory>
#include <string>
#include <vector>

namespace attn::cli {

struct DecoderRun {
    ModelSource source;
    std::shared_ptr<const DecoderModel> model;
    std::unique_ptr<Tokenizer> tokenizer; ///< null when the model has none and `needTokenizer` was false
    ForwardOptions options; ///< the --backend choice
};

/// Loads positional MODEL as a decoder for `command` (an Error names the model otherwise), its tokenizer and the
/// --backend choice.
DecoderRun openDecoder(const Args& args, const std::string& command, bool needTokenizer);

/// The ids of `text` with the tokenizer's special tokens (BOS) when `special`.
std::vector<int64_t> encodeText(const DecoderRun& run, const std::string& text, bool special);

/// TOKEN as one id: a text that encodes to exactly one token, or "#ID". Throws Error naming `option` otherwise.
int64_t singleToken(const DecoderRun& run, const std::string& token, const std::string& option);

/// The non-empty lines of a text file, each encoded with BOS and cut to the model's context, of shard I/N (the
/// lines whose index among the non-empty lines is I modulo N). Throws Error naming the file when it cannot be read.
std::vector<std::vector<int64_t>> readCorpus(
    const DecoderRun& run, const std::string& path, int64_t shard = 0, int64_t shards = 1);

/// The text of `id` for reports (the id in brackets without a tokenizer).
std::string tokenLabel(const DecoderRun& run, int64_t id);

} // namespace attn::cli
