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

/// A first pass over the text that builds nothing: it bounds the nesting and refuses duplicate keys. A parser
/// callback could do the same in one pass, but nlohmann's callback parser rescans the parent container after every
/// object it closes (to drop discarded values), which is quadratic: a 256 KB array of empty objects took minutes.
class StructureCheck : public nlohmann::json_sax<nlohmann::json> {
public:
    StructureCheck(const std::string& source, const std::string& what)
        : m_source(source)
        , m_what(what)
    {
    }

    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return open(); }
    bool start_array(std::size_t) override { return open(); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }

    bool key(string_t& key) override
    {
        if (!m_keys.back().insert(key).second)
            throw Error(m_source,
                m_what + " has the key \"" + shortened(key)
                    + "\" twice in one object (ambiguous: parsers disagree on which one counts)");
        return true;
    }

    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override
    {
        throw Error(m_source, "malformed " + m_what + ": " + parserMessage(e));
    }

private:
    bool open()
    {
        if (m_keys.size() >= static_cast<size_t>(kMaxJsonDepth))
            throw Error(m_source,
                m_what + " nests deeper than " + std::to_string(kMaxJsonDepth) + " levels (a damaged or hostile file)");
        m_keys.emplace_back(); // arrays get an unused entry so the stack follows the nesting
        return true;
    }

    bool close()
    {
        m_keys.pop_back();
        return true;
    }

    const std::string& m_source;
    const std::string& m_what;
    std::vector<std::set<std::string>> m_keys; ///< the keys seen so far in each open container
};

} // namespace

nlohmann::json parseUntrustedJson(std::string_view text, const std::string& source, const std::string& what)
{
    StructureCheck check(source, what);
    nlohmann::json::sax_parse(text.begin(), text.end(), &check);
    // Well-formed and shallow now; the plain DOM parser is linear (its errors were the first pass's, kept in case).
    try {
        return nlohmann::json::parse(text.begin(), text.end());
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

std::string jsonAccessMessage(const std::exception& e)
{
    std::string m = e.what();
    if (m.rfind("[json.exception.", 0) == 0)
        if (const size_t end = m.find("] "); end != std::string::npos) m = m.substr(end + 2);
    const std::string at = "cannot use at() with ";
    if (m.rfind(at, 0) == 0) {
        const std::string type = m.substr(at.size());
        return std::string("cannot look up a key or index in ") + (type == "array" || type == "object" ? "an " : "a ")
            + type;
    }
    if (const size_t open = m.find('\''), close = m.rfind('\''); open != std::string::npos && close > open)
        m = m.substr(0, open + 1) + shortened(m.substr(open + 1, close - open - 1)) + m.substr(close);
    return m.size() > 300 ? m.substr(0, 300) + "..." : m;
}

} // namespace attn
