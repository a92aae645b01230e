// SPDX-License-Identifier: MIT
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace attn::cli {

/// A command-line mistake: printed with the command's usage, exit code 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// `--name value` options, `--flag` switches and positionals of one subcommand.
/// An option takes the next word as its value unless that word starts with "--". `--prompt-file FILE` is read at
/// once and stands for `--prompt` with the file's text, so every command taking --prompt takes it too.
class Args {
public:
    Args(const std::vector<std::string>& words, std::set<std::string> switches);

    const std::vector<std::string>& positionals() const { return m_positionals; }
    std::string positional(size_t index, const std::string& what) const;

    bool has(const std::string& name) const;
    std::optional<std::string> get(const std::string& name) const;
    std::string get(const std::string& name, const std::string& fallback) const;
    std::string require(const std::string& name) const;
    int64_t getInt(const std::string& name, int64_t fallback) const;
    double getDouble(const std::string& name, double fallback) const;
    /// "1,2,3" (commas or spaces) -> ids; empty when the option is absent.
    std::vector<int64_t> getIds(const std::string& name) const;

    /// Throws UsageError for any option not in `known` (switches included).
    void allowOnly(const std::set<std::string>& known) const;

private:
    void readPromptFile();

    std::vector<std::string> m_positionals;
    bool m_promptFromFile = false;
    std::map<std::string, std::string> m_options;
};

} // namespace attn::cli
