// SPDX-License-Identifier: MIT
#include "cli/args.h"
#include "cli/commands.h"
#include "model/model_source.h"
#include "tokenizer/tokenizer_loader.h"

#include <cstdio>
#include <iostream>

namespace attn::cli {
namespace {

/// A token's text on one line: quotes, backslashes and control bytes escaped.
std::string quoted(const std::string& s)
{
    std::string out = "\"";
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += ch;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c < 0x20 || c == 0x7F) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02X", c);
            out += buf;
        } else {
            out += ch;
        }
    }
    return out + "\"";
}

} // namespace

// The default prints the ids without special tokens, like llama.cpp's reference tokenizations;
// --special adds the model's framing tokens ([CLS] ... [SEP], BOS).
int runTokenize(const std::vector<std::string>& words)
{
    const Args args(words, { "verbose", "special" });
    args.allowOnly({ "tokenizer", "text", "text-pair", "verbose", "special" });
    const ModelSource source = probeModel(args.positional(0, "MODEL"));
    const std::string text = args.require("text");
    const auto tokenizer = loadTokenizer(source, args.get("tokenizer", ""));
    const bool special = args.has("special");
    const auto pair = args.get("text-pair");
    const std::vector<Token> tokens
        = pair ? tokenizer->encodePair(text, *pair, special) : tokenizer->encode(text, special);

    std::string line;
    for (const Token& t : tokens) {
        if (!line.empty()) line += ' ';
        line += std::to_string(t.id);
    }
    std::cout << line << "\n";
    if (args.has("verbose")) {
        for (const Token& t : tokens) {
            std::cout << t.id << "\t" << quoted(t.piece) << "\t" << quoted(tokenizer->tokenText(t.id)) << "\t["
                      << t.begin << ", " << t.end << ")";
            if (pair) std::cout << "\ttype " << t.typeId;
            if (t.special) std::cout << "\tspecial";
            std::cout << "\n";
        }
    }
    return 0;
}

} // namespace attn::cli
