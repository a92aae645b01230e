// SPDX-License-Identifier: MIT
#include "model/config_fields.h"

#include "io/json_input.h"

#include <cmath>

namespace attn {

int64_t ConfigFields::integer(const char* key) const
{
    if (!has(key)) throw Error(m_source, std::string("missing required field \"") + key + "\"");
    return optInteger(key, 0);
}

int64_t ConfigFields::optInteger(const char* key, int64_t fallback) const
{
    if (!has(key)) return fallback;
    const auto& v = m_j[key];
    if (v.is_number_integer()) return v.get<int64_t>();
    // (The range test first: casting a double beyond int64 is undefined.)
    if (v.is_number_float() && std::fabs(v.get<double>()) < 9.2e18
        && v.get<double>() == static_cast<double>(static_cast<int64_t>(v.get<double>())))
        return static_cast<int64_t>(v.get<double>());
    if (v.is_array() && !v.empty() && v[0].is_number_integer()) // e.g. eos_token_id: [1, 2]
        return v[0].get<int64_t>();
    throw Error(m_source, std::string("field \"") + key + "\" must be an integer, got " + describeJson(v));
}

double ConfigFields::optNumber(const char* key, double fallback) const
{
    if (!has(key)) return fallback;
    if (!m_j[key].is_number())
        throw Error(m_source, std::string("field \"") + key + "\" must be a number, got " + describeJson(m_j[key]));
    return m_j[key].get<double>();
}

bool ConfigFields::optBool(const char* key, bool fallback) const
{
    if (!has(key)) return fallback;
    if (!m_j[key].is_boolean())
        throw Error(m_source, std::string("field \"") + key + "\" must be true or false, got " + describeJson(m_j[key]));
    return m_j[key].get<bool>();
}

std::string ConfigFields::optString(const char* key, const std::string& fallback) const
{
    if (!has(key)) return fallback;
    if (!m_j[key].is_string())
        throw Error(m_source, std::string("field \"") + key + "\" must be a string, got " + describeJson(m_j[key]));
    return m_j[key].get<std::string>();
}

std::vector<double> ConfigFields::optNumbers(const char* key) const
{
    std::vector<double> out;
    if (!has(key)) return out;
    if (!m_j[key].is_array()) throw Error(m_source, std::string("field \"") + key + "\" must be a list of numbers");
    for (const auto& v : m_j[key]) {
        if (!v.is_number())
            throw Error(m_source, std::string("field \"") + key + "\" must be a list of numbers, got " + describeJson(v));
        out.push_back(v.get<double>());
    }
    return out;
}

ConfigFields ConfigFields::object(const char* key) const
{
    if (!has(key) || !m_j[key].is_object())
        throw Error(m_source, std::string("field \"") + key + "\" must be an object");
    return ConfigFields(m_j[key], m_source);
}

} // namespace attn
