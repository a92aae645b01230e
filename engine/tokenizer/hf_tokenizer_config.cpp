// SPDX-License-Identifier: MIT
#include "tokenizer/hf_tokenizer_config.h"

#include "core/error.h"
#include "core/input_file.h"
#include "io/json_input.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace fs = std::filesystem;

namespace attn {
namespace {

const char* const kTokenKeys[]
    = { "bos_token", "eos_token", "unk_token", "pad_token", "cls_token", "sep_token", "mask_token" };

nlohmann::json readJson(const fs::path& path)
{
    return readUntrustedJson(path.string(), file_caps::kConfigJson, "JSON");
}

/// An added_tokens_decoder key: a decimal id below 2^31 (tokenizers stores u32 ids), or -1.
int64_t parseTokenId(const std::string& text)
{
    if (text.empty() || text.size() > 10 || text.find_first_not_of("0123456789") != std::string::npos) return -1;
    const int64_t id = std::stoll(text);
    return id < (int64_t(1) << 31) ? id : -1;
}

/// A token is written either as a string or as an AddedToken object {"content": ...}.
std::optional<std::string> tokenString(const nlohmann::json& v)
{
    if (v.is_string()) return v.get<std::string>();
    if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
    return std::nullopt;
}

std::optional<bool> optionalBool(const nlohmann::json& j, const char* key)
{
    if (j.contains(key) && j[key].is_boolean()) return j[key].get<bool>();
    return std::nullopt;
}

} // namespace

std::optional<std::string> HfTokenizerConfig::token(const std::string& key) const
{
    const auto it = tokens.find(key);
    return it == tokens.end() ? std::nullopt : std::optional<std::string>(it->second);
}

HfTokenizerConfig readHfTokenizerConfig(const std::string& folder)
{
    HfTokenizerConfig cfg;
    const fs::path configPath = fs::path(folder) / "tokenizer_config.json";
    if (fs::exists(configPath)) {
        const nlohmann::json j = readJson(configPath);
        if (!j.is_object()) throw Error(configPath.string(), "expected a JSON object");
        cfg.doLowerCase = optionalBool(j, "do_lower_case");
        cfg.stripAccents = optionalBool(j, "strip_accents");
        cfg.tokenizeChineseChars = optionalBool(j, "tokenize_chinese_chars");
        cfg.addBosToken = optionalBool(j, "add_bos_token");
        cfg.addEosToken = optionalBool(j, "add_eos_token");
        cfg.addPrefixSpace = optionalBool(j, "add_prefix_space");
        for (const char* key : kTokenKeys)
            if (j.contains(key))
                if (auto s = tokenString(j[key])) cfg.tokens[key] = *s;
        if (j.contains("added_tokens_decoder") && j["added_tokens_decoder"].is_object()) {
            for (const auto& [idText, tok] : j["added_tokens_decoder"].items()) {
                const auto content = tokenString(tok);
                const int64_t id = parseTokenId(idText);
                if (!content || id < 0)
                    throw Error(configPath.string(),
                        "added_tokens_decoder entry '" + idText.substr(0, 40)
                            + "' is malformed (needs a decimal id and a token string)");
                const bool special = tok.is_object() && tok.value("special", false);
                cfg.addedTokens.push_back({ id, *content, special, configPath.string() });
            }
        }
    }
    const fs::path mapPath = fs::path(folder) / "special_tokens_map.json";
    if (fs::exists(mapPath)) {
        const nlohmann::json j = readJson(mapPath);
        if (!j.is_object()) throw Error(mapPath.string(), "expected a JSON object");
        for (const char* key : kTokenKeys)
            if (j.contains(key) && !cfg.tokens.count(key))
                if (auto s = tokenString(j[key])) cfg.tokens[key] = *s;
    }
    return cfg;
}

} // namespace attn
