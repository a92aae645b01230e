// SPDX-License-Identifier: MIT
#include "cli/args.h"

#include <fstream>
#include <sstream>

namespace attn::cli {

Args::Args(const std::vector<std::string>& words, std::set<std::string> switches)
{
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string& w = words[i];
        if (w.rfind("--", 0) != 0 || w.size() == 2) {
            m_positionals.push_back(w);
            continue;
        }
        std::string name = w.substr(2);
        if (const auto eq = name.find('='); eq != std::string::npos) {
            m_options[name.substr(0, eq)] = name.substr(eq + 1);
        } else if (switches.count(name)) {
            m_options[name] = std::string(1, '1');
        } else if (i + 1 < words.size()) {
            m_options[name] = words[++i];
        } else {
            throw UsageError("option --" + name + " needs a value");
        }
    }
    readPromptFile();
}

void Args::readPromptFile()
{
    const auto path = get("prompt-file");
    if (!path)
        return;
    if (has("prompt"))
        throw UsageError("give either --prompt or --prompt-file, not both");
    std::ifstream in(*path, std::ios::binary);
    if (!in)
        throw UsageError("--prompt-file " + *path + ": cannot open the file");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
        throw UsageError("--prompt-file " + *path + ": read error");
    m_options.erase("prompt-file");
    m_options["prompt"] = text.str();
    m_promptFromFile = true;
}

std::string Args::positional(size_t index, const std::string& what) const
{
    if (index >= m_positionals.size())
        throw UsageError("missing " + what);
    return m_positionals[index];
}

bool Args::has(const std::string& name) const { return m_options.count(name) != 0; }

std::optional<std::string> Args::get(const std::string& name) const
{
    const auto it = m_options.find(name);
    if (it == m_options.end())
        return std::nullopt;
    return it->second;
}

std::string Args::get(const std::string& name, const std::string& fallback) const
{
    return get(name).value_or(fallback);
}

std::string Args::require(const std::string& name) const
{
    auto v = get(name);
    if (!v)
        throw UsageError("missing --" + name);
    return *v;
}

int64_t Args::getInt(const std::string& name, int64_t fallback) const
{
    const auto v = get(name);
    if (!v)
        return fallback;
    try {
        size_t used = 0;
        const int64_t x = std::stoll(*v, &used);
        if (used != v->size())
            throw UsageError("");
        return x;
    } catch (const std::exception&) {
        throw UsageError("--" + name + " expects an integer, got '" + *v + "'");
    }
}

double Args::getDouble(const std::string& name, double fallback) const
{
    const auto v = get(name);
    if (!v)
        return fallback;
    try {
        size_t used = 0;
        const double x = std::stod(*v, &used);
        if (used != v->size())
            throw UsageError("");
        return x;
    } catch (const std::exception&) {
        throw UsageError("--" + name + " expects a number, got '" + *v + "'");
    }
}

std::vector<int64_t> Args::getIds(const std::string& name) const
{
    std::vector<int64_t> ids;
    const auto v = get(name);
    if (!v)
        return ids;
    std::string s = *v;
    for (char& c : s)
        if (c == ',')
            c = ' ';
    std::istringstream in(s);
    std::string item;
    while (in >> item) {
        try {
            size_t used = 0;
            ids.push_back(std::stoll(item, &used));
            if (used != item.size())
                throw UsageError("");
        } catch (const std::exception&) {
            throw UsageError("--" + name + " expects comma-separated integers, got '" + item + "'");
        }
    }
    return ids;
}

void Args::allowOnly(const std::set<std::string>& known) const
{
    for (const auto& [name, value] : m_options)
        if (!known.count(name))
            throw UsageError("unknown option --" + (name == "prompt" && m_promptFromFile ? "prompt-file" : name));
}

} // namespace attn::cli
