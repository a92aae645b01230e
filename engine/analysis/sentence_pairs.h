// SPDX-License-Identifier: MIT
#pragma once
// A parallel corpus as `attnscope-cli prune` and the Pruning tab read it for a translator: one sentence pair a line,
// the source and its reference translation separated by a tab (the layout of the Tatoeba / Anki files such as the
// PyTorch seq2seq tutorial's eng-fra.txt; fields after the second, such as attributions, are ignored).
#include "analysis/translation_importance.h"
#include "session/translator.h"

#include <string>
#include <vector>

namespace attn {

/// The pairs of the non-empty lines of `path`, each side as `translator` reads it (Translator::source, ::target).
/// Throws Error naming the file (and the line) when it cannot be read, a line has no tab or an empty side, a side is
/// longer than the model's positions, or there is no pair.
std::vector<SentencePair> readSentencePairs(const std::string& path, const Translator& translator);

} // namespace attn
