// SPDX-License-Identifier: MIT
#include "export/json_fields.h"

#include "core/error.h"

#include <QJsonDocument>

#include <utility>

namespace attn::ui {

QJsonObject parseStrictObject(
    const std::string& json, const std::string& what, const std::string& source, const std::set<QString>& known)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json), &error);
    if (error.error != QJsonParseError::NoError)
        throw Error(what + " " + source + ": invalid JSON at offset " + std::to_string(error.offset) + ": "
            + error.errorString().toStdString());
    if (!doc.isObject()) throw Error(what + " " + source + ": expected a JSON object");
    const QJsonObject object = doc.object();
    for (const QString& key : object.keys())
        if (!known.count(key)) throw Error(what + " " + source + ": unknown key \"" + key.toStdString() + "\"");
    return object;
}

JsonFields::JsonFields(QJsonObject object, std::string what, std::string source)
    : m_object(std::move(object))
    , m_what(std::move(what))
    , m_source(std::move(source))
{
}

std::string JsonFields::string(const char* key) const
{
    const QJsonValue v = m_object.value(key);
    if (!v.isString()) fail(key, "a string");
    return v.toString().toStdString();
}

int64_t JsonFields::integer(const char* key) const
{
    const QJsonValue v = m_object.value(key);
    if (!v.isDouble() || v.toDouble() != static_cast<double>(v.toInteger())) fail(key, "an integer");
    return v.toInteger();
}

double JsonFields::number(const char* key) const
{
    const QJsonValue v = m_object.value(key);
    if (!v.isDouble()) fail(key, "a number");
    return v.toDouble();
}

bool JsonFields::boolean(const char* key) const
{
    const QJsonValue v = m_object.value(key);
    if (!v.isBool()) fail(key, "true or false");
    return v.toBool();
}

std::vector<int64_t> JsonFields::integers(const char* key) const
{
    const QJsonValue v = m_object.value(key);
    if (!v.isArray()) fail(key, "an array of integers");
    std::vector<int64_t> out;
    for (const QJsonValue& item : v.toArray()) {
        if (!item.isDouble() || item.toDouble() != static_cast<double>(item.toInteger()))
            fail(key, "an array of integers");
        out.push_back(item.toInteger());
    }
    return out;
}

std::vector<std::string> JsonFields::strings(const char* key) const
{
    const QJsonValue v = m_object.value(key);
    if (!v.isArray()) fail(key, "an array of strings");
    std::vector<std::string> out;
    for (const QJsonValue& item : v.toArray()) {
        if (!item.isString()) fail(key, "an array of strings");
        out.push_back(item.toString().toStdString());
    }
    return out;
}

void JsonFields::fail(const char* key, const char* expected) const
{
    throw Error(m_what + " " + m_source + ": \"" + key + "\" must be " + expected);
}

QJsonArray toJsonArray(const std::vector<int64_t>& values)
{
    QJsonArray out;
    for (int64_t v : values)
        out.append(static_cast<qint64>(v));
    return out;
}

} // namespace attn::ui
