// SPDX-License-Identifier: MIT
#pragma once
// Typed reads of one config.json object for the family parsers; every error names the file and the field.
#include "core/error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

class ConfigFields {
public:
    ConfigFields(const nlohmann::json& j, std::string source)
        : m_j(j)
        , m_source(std::move(source))
    {
    }

    const std::string& source() const { return m_source; }
    const nlohmann::json& json() const { return m_j; }
    bool has(const char* key) const { return m_j.contains(key) && !m_j[key].is_null(); }

    int64_t integer(const char* key) const;
    int64_t optInteger(const char* key, int64_t fallback) const;
    double optNumber(const char* key, double fallback) const;
    bool optBool(const char* key, bool fallback) const;
    std::string optString(const char* key, const std::string& fallback) const;
    /// A list of numbers (longrope factors); empty when absent.
    std::vector<double> optNumbers(const char* key) const;
    /// The sub-object `key` (e.g. rope_scaling) read with the same rules; throws unless it is an object.
    ConfigFields object(const char* key) const;

private:
    const nlohmann::json& m_j;
    std::string m_source;
};

} // namespace attn
