// SPDX-License-Identifier: MIT
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attn {

/// What tokenizer_config.json and special_tokens_map.json of an HF folder say (both optional).
struct HfTokenizerConfig {
    struct Added {
        int64_t id;
        std::string content;
        bool special;
        std::string file; ///< where it was declared, for messages
    };
    std::optional<bool> doLowerCase;
    std::optional<bool> stripAccents; ///< unset (or null): follows doLowerCase
    std::optional<bool> tokenizeChineseChars;
    std::optional<bool> addBosToken;
    std::optional<bool> addEosToken;
    std::optional<bool> addPrefixSpace;
    std::map<std::string, std::string> tokens; ///< "bos_token" -> "<s>", ...; tokenizer_config.json wins
    std::vector<Added> addedTokens; ///< added_tokens_decoder

    std::optional<std::string> token(const std::string& key) const;
};

/// Reads FOLDER/tokenizer_config.json and FOLDER/special_tokens_map.json where present.
/// Throws Error naming the file for malformed JSON.
HfTokenizerConfig readHfTokenizerConfig(const std::string& folder);

} // namespace attn
