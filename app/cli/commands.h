// SPDX-License-Identifier: MIT
#pragma once
#include <string>
#include <vector>

namespace attn::cli {

/// One subcommand of attnscope-cli. `run` gets the words after the subcommand name and returns the exit code;
/// it may throw UsageError (exit 2, usage printed) or attn::Error (exit 1, message printed).
struct Command {
    const char* name;
    const char* usage;
    const char* summary;
    int (*run)(const std::vector<std::string>& words);
};

const std::vector<Command>& commands();

// Each lives in its own cmd_<name>.cpp.
int runInfo(const std::vector<std::string>& words);
int runGenerate(const std::vector<std::string>& words);
int runAttention(const std::vector<std::string>& words);
int runTokenize(const std::vector<std::string>& words);
int runClassify(const std::vector<std::string>& words);
int runRollout(const std::vector<std::string>& words);
/// The vision branch of `attention` (vision_attention.cpp), dispatched to from cmd_attention.cpp.
int runVisionAttention(const std::vector<std::string>& words);

/// The encoder-decoder branch of `attention` (seq2seq_attention.cpp), dispatched to from cmd_attention.cpp.
int runSeq2SeqAttention(const std::vector<std::string>& words);
int runTranslate(const std::vector<std::string>& words);
int runCaption(const std::vector<std::string>& words);
int runAlign(const std::vector<std::string>& words);
int runExport(const std::vector<std::string>& words);
int runMechanisms(const std::vector<std::string>& words);
int runAblate(const std::vector<std::string>& words);
int runEffect(const std::vector<std::string>& words);
int runPatch(const std::vector<std::string>& words);
int runAtlas(const std::vector<std::string>& words);
int runAtlasMerge(const std::vector<std::string>& words);
int runPrune(const std::vector<std::string>& words);
int runLens(const std::vector<std::string>& words);

} // namespace attn::cli
