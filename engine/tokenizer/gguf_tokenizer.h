// SPDX-License-Identifier: MIT
#pragma once
#include "tokenizer/tokenizer.h"

#include <memory>
#include <string>

namespace attn {

class GgufFile;

/// The tokenizer a GGUF file carries in its `tokenizer.ggml.*` metadata:
///   "llama" (SentencePiece-style pieces with scores; llama.cpp's SPM = run.c's algorithm),
///   "gpt2" (byte-level BPE with merges; the GPT-2 pre-tokenizer, tokenizer.ggml.pre "gpt-2" or "default"),
///   "bert" (WordPiece; llama.cpp's "phantom space" pieces turned back into "##" continuations).
/// Throws Error naming the file for a file without a vocabulary and for other tokenizer models.
std::unique_ptr<Tokenizer> loadGgufTokenizer(const GgufFile& file);
std::unique_ptr<Tokenizer> loadGgufTokenizer(const std::string& path);

} // namespace attn
