// SPDX-License-Identifier: MIT
#pragma once
// Strict reading of the small JSON documents the app writes for people to keep (view recipes, workspaces): unknown
// keys and wrong types are errors that name the kind of file, the file and the key.
#include <QJsonArray>
#include <QJsonObject>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace attn::ui {

/// Parses `json` as one object whose keys are all in `known`; errors read "<what> <source>: ...".
QJsonObject parseStrictObject(
    const std::string& json, const std::string& what, const std::string& source, const std::set<QString>& known);

/// Typed access to the fields of such an object.
class JsonFields {
public:
    JsonFields(QJsonObject object, std::string what, std::string source);

    bool has(const char* key) const { return m_object.contains(key); }
    std::string string(const char* key) const;
    int64_t integer(const char* key) const;
    double number(const char* key) const;
    bool boolean(const char* key) const;
    std::vector<int64_t> integers(const char* key) const;
    std::vector<std::string> strings(const char* key) const;

private:
    [[noreturn]] void fail(const char* key, const char* expected) const;

    QJsonObject m_object;
    std::string m_what;
    std::string m_source;
};

QJsonArray toJsonArray(const std::vector<int64_t>& values);

} // namespace attn::ui
