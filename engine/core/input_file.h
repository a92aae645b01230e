// SPDX-License-Identifier: MIT
#pragma once
// Reading files named by the user or found in a model folder: only regular files, each kind with a size cap, so a
// FIFO cannot hang a load and /dev/zero or a huge file cannot grow memory without bound.
#include <cstdint>
#include <string>

namespace attn {

/// Size caps per file kind (bytes). Generous for genuine files: the largest tokenizer.json on the Hub is ~35 MB.
namespace file_caps {
inline constexpr uint64_t kConfigJson = 16ull << 20; ///< config.json, tokenizer_config.json, preprocessor_config.json
inline constexpr uint64_t kTokenizer = 512ull << 20; ///< tokenizer.json, vocab files, merges, SentencePiece models
inline constexpr uint64_t kText = 1ull << 30; ///< source / target / gold sentence files, recipes
inline constexpr uint64_t kArray = 4ull << 30; ///< .npy inputs (pixel values, log-mel features, token ids)
} // namespace file_caps

/// Throws Error("PATH: ...") unless `path` (after following symlinks) is a regular file of at most maxBytes;
/// `kind` names the file in the message ("config", "tokenizer file"). Returns its size.
uint64_t requireRegularFile(const std::string& path, uint64_t maxBytes, const std::string& kind);

/// The whole file, after the checks of requireRegularFile. Opening never blocks (a FIFO is refused, not waited on).
std::string readInputFile(const std::string& path, uint64_t maxBytes, const std::string& kind);

} // namespace attn
