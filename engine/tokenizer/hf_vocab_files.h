// SPDX-License-Identifier: MIT
#pragma once
#include "tokenizer/hf_tokenizer_config.h"
#include "tokenizer/tokenizer.h"

#include <memory>

namespace attn {

/// GPT-2 style vocab.json + merges.txt. Special tokens come from `cfg`, defaulting like GPT2Tokenizer
/// to "<|endoftext|>" for BOS, EOS and unknown when the vocabulary has it.
std::unique_ptr<Tokenizer> loadVocabJsonMerges(
    const std::string& vocabJson, const std::string& mergesTxt, const HfTokenizerConfig& cfg);

/// BERT vocab.txt (one token per line, the line number is the id) with the BasicTokenizer options of `cfg`
/// (do_lower_case defaults to true, strip_accents follows it, tokenize_chinese_chars defaults to true).
std::unique_ptr<Tokenizer> loadVocabTxt(const std::string& vocabTxt, const HfTokenizerConfig& cfg);

/// A Hugging Face tokenizer.json whose model is byte-level BPE with GPT-2 pre-tokenization.
/// Throws Error naming the file and the unsupported part for anything else.
std::unique_ptr<Tokenizer> loadTokenizerJson(const std::string& path, const HfTokenizerConfig& cfg);

} // namespace attn
