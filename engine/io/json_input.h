// SPDX-License-Identifier: MIT
#pragma once
// The one way the engine parses JSON it did not write (config.json, safetensors headers and indexes, tokenizer
// files): nesting depth bounded while parsing, duplicate keys refused, and messages that quote at most a short prefix
// of what they found.
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

namespace attn {

/// Deeper nesting is refused while parsing (genuine files nest at most ~6 levels).
inline constexpr int kMaxJsonDepth = 64;

/// Parses `text`; throws Error("SOURCE: malformed WHAT: ...") for bad syntax, nesting deeper than kMaxJsonDepth or a
/// key that appears twice in one object (another parser would see a different file).
nlohmann::json parseUntrustedJson(std::string_view text, const std::string& source, const std::string& what);

/// readInputFile(path, maxBytes, what) then parseUntrustedJson.
nlohmann::json readUntrustedJson(const std::string& path, uint64_t maxBytes, const std::string& what);

/// "\"abc...\"" (a string), "an array of 3 values", "an object with 2 keys", "the number 1.5": for messages about
/// a value of the wrong type, never longer than ~60 characters whatever the value holds.
std::string describeJson(const nlohmann::json& value);

/// nlohmann's error for a value of the wrong type or a missing key or index (json::at, get), in words and without
/// its "[json.exception.type_error.304]" tag: "key 'cls' not found", "cannot look up a key or index in a string",
/// "type must be number, but is string". A quoted key is cut short like describeJson's strings.
std::string jsonAccessMessage(const std::exception& e);

} // namespace attn
