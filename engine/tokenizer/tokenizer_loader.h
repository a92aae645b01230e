// SPDX-License-Identifier: MIT
#pragma once
#include "model/model_source.h"
#include "tokenizer/tokenizer.h"

#include <memory>

namespace attn {

/// Chooses and loads the tokenizer of a model.
///
/// With `overridePath` (a file or a folder) that is used: tokenizer.json (any *.json with a "model" key),
/// vocab.json (with merges.txt beside it), *.txt (BERT vocab), *.model (SentencePiece), *.bin (llama2.c),
/// *.spm or a vocab.json with source.spm beside it (MarianMT: source.spm + target.spm + vocab.json), *.gguf
/// (its tokenizer.ggml.* vocabulary);
/// a folder is searched like a model folder. tokenizer_config.json / special_tokens_map.json are read from the
/// tokenizer file's folder, or else from the model folder.
///
/// Otherwise a GGUF model uses its own tokenizer.ggml.* vocabulary, and the others look in source.folder, first match
/// wins:
///   HF folders: source.spm (MarianMT), tokenizer.json (byte-level BPE), vocab.json + merges.txt, vocab.txt,
///               tokenizer.model, spiece.model (SentencePiece). A tokenizer.json of another kind is skipped when a
///               later file exists.
///   llama2.c:   tokenizer.bin, then tok<vocab_size>.bin, then the only tok*.bin (several: an error listing them);
///               then tokenizer.model.
/// A tokenizer with more tokens than the model's vocab_size is refused. Throws Error naming the model folder and
/// the files looked for when nothing matches.
std::unique_ptr<Tokenizer> loadTokenizer(const ModelSource& source, const std::string& overridePath = "");

} // namespace attn
