// SPDX-License-Identifier: MIT
#pragma once
// A random-weight model with the genuine GPT-2 vocabulary and many positions, written by
// bench/make_long_context_model.py, plus a text of an exact token count: the long-input tests' fixture.
#include "support/shared_data.h"

#include <gtest/gtest.h>

#include <string>

namespace attn::test {

struct LongContextModel {
    std::string dir; ///< the model folder
    std::string text; ///< a file of exactly `tokens` GPT-2 tokens
};

/// Throws (failing the test loudly) when the script or the shared vocabulary is missing.
inline LongContextModel makeLongContextModel(
    const std::string& family, int positions, int tokens, const std::string& shape = "--layers 2 --heads 2 --width 64")
{
    LongContextModel m;
    m.dir = makeTempDir("long-" + family + "-" + std::to_string(positions));
    m.text = m.dir + "/text.txt";
    std::string output;
    const std::string command = pythonPath() + " " + std::string(AS_SOURCE_DIR) + "/bench/make_long_context_model.py "
        + m.dir + " --family " + family + " " + shape + " --positions " + std::to_string(positions) + " --tokenizer "
        + sharedPath("models/gpt2-bpe-tokenizer") + " --text-tokens " + std::to_string(tokens) + " --text-file "
        + m.text + " 2>&1";
    if (runCommand(command, &output) != 0) throw std::runtime_error("make_long_context_model.py failed: " + output);
    return m;
}

} // namespace attn::test
