// SPDX-License-Identifier: MIT
#include "io/json_input.h"

#include "core/error.h"
#include "core/input_file.h"

#include <nlohmann/json.hpp>

#include <set>
#include <vector>

namespace attn {
namespace {

constexpr size_t kQuoteChars = 40;

std::string shortened(std::string s)
{
    if (s.size() > kQuoteChars) s = s.substr(0, kQuoteChars) + "...";
    return s;
}

/// What nlohmann says, with the token it quotes ("last read: '...'", as long as the bad token) cut short.
std::string parserMessage(const std::exception& e)
{
    std::string m = e.what();
    const std::string marker = "last read: '";
    if (const size_t at = m.find(marker); at != std::string::npos)
        m = m.substr(0, at + marker.size()) + shortened(m.substr(at + marker.size()));
    return m.size() > 300 ? m.substr(0, 300) + "..." : m;
}

} // namespace

nlohmann::json parseUntrustedJson(std::string_view text, const std::string& source, const std::string& what)
{
    // The keys seen so far in each open object (arrays get an unused entry so the stack follows the nesting).
    std::vector<std::set<std::string>> keys;
    const auto check = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        using Event = nlohmann::json::parse_event_t;
        switch (event) {
        case Event::object_start:
        case Event::array_start:
            if (depth >= kMaxJsonDepth)
                throw Error(source,
                    what + " nests deeper than " + std::to_string(kMaxJsonDepth)
                        + " levels (a damaged or hostile file)");
            keys.emplace_back();
            break;
        case Event::object_end:
        case Event::array_end:
            keys.pop_back();
            break;
        case Event::key:
            if (!keys.back().insert(parsed.get<std::string>()).second)
                throw Error(source,
                    what + " has the key \"" + shortened(parsed.get<std::string>())
                        + "\" twice in one object (ambiguous: parsers disagree on which one counts)");
            break;
        case Event::value:
            break;
        }
        return true;
    };
    try {
        return nlohmann::json::parse(text.begin(), text.end(), check);
    } catch (const nlohmann::json::exception& e) {
        throw Error(source, "malformed " + what + ": " + parserMessage(e));
    }
}

nlohmann::json readUntrustedJson(const std::string& path, uint64_t maxBytes, const std::string& what)
{
    return parseUntrustedJson(readInputFile(path, maxBytes, what), path, what);
}

std::string describeJson(const nlohmann::json& value)
{
    switch (value.type()) {
    case nlohmann::json::value_t::null:
        return "null";
    case nlohmann::json::value_t::boolean:
        return value.get<bool>() ? "true" : "false";
    case nlohmann::json::value_t::string:
        return "\"" + shortened(value.get<std::string>()) + "\"";
    case nlohmann::json::value_t::array:
        return "an array of " + std::to_string(value.size()) + " values";
    case nlohmann::json::value_t::object:
        return "an object with " + std::to_string(value.size()) + " keys";
    case nlohmann::json::value_t::binary:
        return "binary data";
    case nlohmann::json::value_t::discarded:
        return "nothing";
    default:
        return "the number " + value.dump();
    }
}

} // namespace attn
