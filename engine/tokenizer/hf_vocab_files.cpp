// SPDX-License-Identifier: MIT
#include "tokenizer/hf_vocab_files.h"

#include "core/error.h"
#include "core/input_file.h"
#include "io/json_input.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/wordpiece_tokenizer.h"

#include <nlohmann/json.hpp>

#include <sstream>

namespace attn {
namespace {

std::string readText(const std::string& path)
{
    return readInputFile(path, file_caps::kTokenizer, "tokenizer file");
}

nlohmann::json parseJson(const std::string& path)
{
    return parseUntrustedJson(readText(path), path, "JSON");
}

/// A token id as the file writes it. nlohmann's get<int64_t> would cast a float: 1.5 silently to 1, and 1e300,
/// outside int64's range, with undefined behaviour.
int64_t integerId(const nlohmann::json& v, const std::string& path, const std::string& what)
{
    if (!v.is_number_integer()) throw Error(path, what + " is " + describeJson(v) + ", not an integer id");
    return v.get<int64_t>();
}

/// Puts `piece` at `id`, growing the table; two pieces for one id is an error. `idLimit` is the number of tokens the
/// file defines: every id must lie below it (or a hole would remain), so a huge id is refused before any allocation.
void placePiece(
    std::vector<std::string>& vocab, int64_t id, const std::string& piece, const std::string& path, size_t idLimit)
{
    if (id < 0 || static_cast<uint64_t>(id) >= idLimit)
        throw Error(path,
            "token '" + piece.substr(0, 40) + "' has the id " + std::to_string(id) + ", outside 0.."
                + std::to_string(idLimit - 1) + " (the file defines " + std::to_string(idLimit) + " tokens)");
    if (vocab.size() <= static_cast<size_t>(id)) vocab.resize(static_cast<size_t>(id) + 1);
    std::string& slot = vocab[static_cast<size_t>(id)];
    if (!slot.empty() && slot != piece)
        throw Error(path, "id " + std::to_string(id) + " is used by both '" + slot + "' and '" + piece + "'");
    slot = piece;
}

std::vector<std::string> vocabFromJsonObject(const nlohmann::json& j, const std::string& path)
{
    if (!j.is_object() || j.empty()) throw Error(path, "expected a non-empty JSON object mapping tokens to ids");
    std::vector<std::string> vocab;
    for (const auto& [piece, id] : j.items()) {
        if (!id.is_number_integer()) throw Error(path, "the id of token '" + piece + "' is not an integer");
        placePiece(vocab, id.get<int64_t>(), piece, path, j.size());
    }
    for (size_t id = 0; id < vocab.size(); ++id)
        if (vocab[id].empty())
            throw Error(path,
                "no token has id " + std::to_string(id) + " (ids must be 0.." + std::to_string(vocab.size() - 1) + ")");
    return vocab;
}

int64_t findId(const std::vector<std::string>& vocab, const AddedTokens& added, const std::string& piece)
{
    if (const AddedTokens::Entry* e = added.find(piece)) return e->id;
    for (size_t id = 0; id < vocab.size(); ++id)
        if (vocab[id] == piece) return static_cast<int64_t>(id);
    return -1;
}

/// Resolves the special-token strings of `cfg` (with `defaults`) to ids; each found one is also an added
/// special token, so that it is matched in the text as Hugging Face does.
SpecialTokenIds resolveSpecials(const HfTokenizerConfig& cfg, const std::map<std::string, std::string>& defaults,
    std::vector<std::string>& vocab, AddedTokens& added, const std::string& path)
{
    const size_t idLimit = vocab.size() + cfg.addedTokens.size();
    for (const auto& a : cfg.addedTokens) {
        placePiece(vocab, a.id, a.content, a.file.empty() ? path : a.file, idLimit);
        added.add(a.content, a.id, a.special);
    }
    SpecialTokenIds ids;
    const std::pair<const char*, int64_t*> keys[]
        = { { "bos_token", &ids.bos }, { "eos_token", &ids.eos }, { "pad_token", &ids.pad }, { "cls_token", &ids.cls },
              { "sep_token", &ids.sep }, { "mask_token", &ids.mask }, { "unk_token", &ids.unk } };
    for (const auto& [key, slot] : keys) {
        std::optional<std::string> piece = cfg.token(key);
        if (!piece)
            if (const auto it = defaults.find(key); it != defaults.end()) piece = it->second;
        if (!piece) continue;
        *slot = findId(vocab, added, *piece);
        if (*slot >= 0) added.add(*piece, *slot, true);
    }
    return ids;
}

std::vector<int64_t> optionalId(bool wanted, int64_t id)
{
    return wanted && id >= 0 ? std::vector<int64_t> { id } : std::vector<int64_t> {};
}

} // namespace

std::unique_ptr<Tokenizer> loadVocabJsonMerges(
    const std::string& vocabJson, const std::string& mergesTxt, const HfTokenizerConfig& cfg)
{
    BpeTokenizer::Spec spec;
    spec.path = vocabJson;
    spec.mergesPath = mergesTxt;
    spec.vocab = vocabFromJsonObject(parseJson(vocabJson), vocabJson);
    std::istringstream merges(readText(mergesTxt));
    std::string line;
    for (size_t lineNo = 1; std::getline(merges, line); ++lineNo) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || (lineNo == 1 && line.rfind("#version", 0) == 0)) continue;
        const size_t space = line.find(' ');
        if (space == std::string::npos || space == 0 || space + 1 == line.size()
            || line.find(' ', space + 1) != std::string::npos)
            throw Error(mergesTxt, "line " + std::to_string(lineNo) + " is not a merge \"LEFT RIGHT\": '" + line + "'");
        spec.merges.emplace_back(line.substr(0, space), line.substr(space + 1));
    }
    const std::string eot = "<|endoftext|>";
    std::map<std::string, std::string> defaults;
    if (findId(spec.vocab, spec.added, eot) >= 0)
        defaults = { { "bos_token", eot }, { "eos_token", eot }, { "unk_token", eot } };
    spec.special = resolveSpecials(cfg, defaults, spec.vocab, spec.added, vocabJson);
    spec.prefix = optionalId(cfg.addBosToken.value_or(false), spec.special.bos);
    spec.suffix = optionalId(cfg.addEosToken.value_or(false), spec.special.eos);
    spec.addPrefixSpace = cfg.addPrefixSpace.value_or(false);
    return std::make_unique<BpeTokenizer>(std::move(spec));
}

std::unique_ptr<Tokenizer> loadVocabTxt(const std::string& vocabTxt, const HfTokenizerConfig& cfg)
{
    WordPieceTokenizer::Spec spec;
    spec.path = vocabTxt;
    std::istringstream in(readText(vocabTxt));
    std::string line;
    while (std::getline(in, line))
        spec.vocab.push_back(line); // Hugging Face strips only "\n"
    if (spec.vocab.empty()) throw Error(vocabTxt, "empty vocabulary");
    spec.special = resolveSpecials(cfg,
        { { "unk_token", "[UNK]" }, { "cls_token", "[CLS]" }, { "sep_token", "[SEP]" }, { "pad_token", "[PAD]" },
            { "mask_token", "[MASK]" } },
        spec.vocab, spec.added, vocabTxt);
    spec.lowercase = cfg.doLowerCase.value_or(true);
    spec.stripAccents = cfg.stripAccents.value_or(spec.lowercase);
    spec.chineseChars = cfg.tokenizeChineseChars.value_or(true);
    return std::make_unique<WordPieceTokenizer>(std::move(spec));
}

namespace {

// GPT-2's pattern as tokenizer.json spells it in a Split pre-tokenizer.
const char* const kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

std::string typeOf(const nlohmann::json& j)
{
    return j.is_object() ? j.value("type", std::string()) : std::string();
}

/// Collects the ids a post-processor puts before, between and after the texts.
void readPostProcessor(const nlohmann::json& pp, BpeTokenizer::Spec& spec, const std::string& path)
{
    const std::string type = typeOf(pp);
    if (pp.is_null() || type == "ByteLevel") return;
    if (type == "Sequence") {
        for (const auto& p : pp.at("processors"))
            readPostProcessor(p, spec, path);
        return;
    }
    if (type == "RobertaProcessing" || type == "BertProcessing") {
        const int64_t cls = integerId(pp.at("cls").at(1), path, type + "'s cls id");
        const int64_t sep = integerId(pp.at("sep").at(1), path, type + "'s sep id");
        spec.prefix = { cls };
        spec.suffix = { sep };
        spec.pairMiddle
            = type == "RobertaProcessing" ? std::vector<int64_t> { sep, sep } : std::vector<int64_t> { sep };
        return;
    }
    if (type == "TemplateProcessing") {
        const auto specialIds = [&](const nlohmann::json& item) {
            const std::string name = item.at("SpecialToken").at("id").get<std::string>();
            const std::string what = "special token '" + name.substr(0, 40) + "'";
            const nlohmann::json& list = pp.at("special_tokens").at(name).at("ids");
            if (!list.is_array())
                throw Error(path, "the ids of " + what + " are " + describeJson(list) + ", not a list");
            std::vector<int64_t> ids;
            for (const auto& id : list)
                ids.push_back(integerId(id, path, "an id of " + what));
            return ids;
        };
        const auto split = [&](const nlohmann::json& tmpl, std::vector<std::vector<int64_t>>& parts) {
            parts.assign(1, {});
            for (const auto& item : tmpl) {
                if (item.contains("Sequence")) {
                    parts.emplace_back();
                } else {
                    const auto ids = specialIds(item);
                    parts.back().insert(parts.back().end(), ids.begin(), ids.end());
                }
            }
        };
        std::vector<std::vector<int64_t>> single, pair;
        split(pp.at("single"), single);
        if (single.size() != 2) throw Error(path, "post_processor template 'single' must hold one sequence");
        spec.prefix = single[0];
        spec.suffix = single[1];
        if (pp.contains("pair")) {
            split(pp.at("pair"), pair);
            if (pair.size() == 3) spec.pairMiddle = pair[1];
        }
        return;
    }
    throw Error(path, "post_processor type '" + type + "' is not supported");
}

/// Accepts GPT-2's byte-level pre-tokenization only (alone or as Split + ByteLevel); reads add_prefix_space.
void readPreTokenizer(const nlohmann::json& pt, BpeTokenizer::Spec& spec, const std::string& path)
{
    const std::string type = typeOf(pt);
    if (type == "ByteLevel") {
        spec.addPrefixSpace = pt.value("add_prefix_space", false);
        if (!pt.value("use_regex", true))
            throw Error(path,
                "a ByteLevel pre-tokenizer without its GPT-2 regex and without a Split before it is not supported");
    } else if (type == "Sequence" && pt.contains("pretokenizers") && pt["pretokenizers"].size() == 2
        && typeOf(pt["pretokenizers"][0]) == "Split" && typeOf(pt["pretokenizers"][1]) == "ByteLevel") {
        const auto& split = pt["pretokenizers"][0];
        const std::string pattern = split.contains("pattern") && split["pattern"].contains("Regex")
            ? split["pattern"]["Regex"].get<std::string>()
            : std::string();
        if (pattern != kGpt2Pattern || split.value("behavior", std::string("Isolated")) != "Isolated")
            throw Error(path,
                "the pre-tokenizer regex '" + pattern
                    + "' is not supported; only GPT-2's byte-level pattern is implemented");
        spec.addPrefixSpace = pt["pretokenizers"][1].value("add_prefix_space", false);
    } else {
        throw Error(path,
            "pre_tokenizer '" + (type.empty() ? std::string("null") : type)
                + "' is not supported; only byte-level BPE (GPT-2 pre-tokenization) is implemented");
    }
}

} // namespace

std::unique_ptr<Tokenizer> loadTokenizerJson(const std::string& path, const HfTokenizerConfig& cfg)
{
    const nlohmann::json j = parseJson(path);
    std::string part = "model"; // the section being read, for messages about its structure
    try {
        const nlohmann::json& model = j.at("model");
        const std::string type = model.value("type", std::string("BPE"));
        if (type != "BPE") throw Error(path, "model type '" + type + "' is not supported in tokenizer.json (only BPE)");
        if (j.contains("normalizer") && !j["normalizer"].is_null())
            throw Error(path, "normalizer '" + typeOf(j["normalizer"]) + "' is not supported");
        BpeTokenizer::Spec spec;
        spec.path = path;
        spec.mergesPath = path;
        part = "pre_tokenizer";
        readPreTokenizer(j.value("pre_tokenizer", nlohmann::json()), spec, path);
        part = "model";
        if (!model.value("continuing_subword_prefix", nlohmann::json()).is_null()
            || !model.value("end_of_word_suffix", nlohmann::json()).is_null())
            throw Error(path, "BPE with subword prefixes or suffixes is not supported");
        spec.vocab = vocabFromJsonObject(model.at("vocab"), path);
        for (const auto& m : model.at("merges")) {
            if (m.is_string()) {
                const std::string s = m.get<std::string>();
                const size_t space = s.find(' ');
                if (space == std::string::npos)
                    throw Error(path, "merge " + describeJson(m) + " is not \"LEFT RIGHT\"");
                spec.merges.emplace_back(s.substr(0, space), s.substr(space + 1));
            } else {
                spec.merges.emplace_back(m.at(0).get<std::string>(), m.at(1).get<std::string>());
            }
        }
        spec.ignoreMerges = model.value("ignore_merges", false);
        HfTokenizerConfig withAdded = cfg;
        part = "added_tokens";
        for (const auto& a : j.value("added_tokens", nlohmann::json::array()))
            withAdded.addedTokens.push_back({ integerId(a.at("id"), path, "an added token's id"),
                a.at("content").get<std::string>(), a.value("special", false), path });
        std::map<std::string, std::string> defaults;
        if (model.contains("unk_token") && model["unk_token"].is_string())
            defaults["unk_token"] = model["unk_token"].get<std::string>();
        spec.special = resolveSpecials(withAdded, defaults, spec.vocab, spec.added, path);
        part = "post_processor";
        readPostProcessor(j.value("post_processor", nlohmann::json()), spec, path);
        return std::make_unique<BpeTokenizer>(std::move(spec));
    } catch (const nlohmann::json::exception& e) {
        throw Error(path, "unexpected structure of tokenizer.json's '" + part + "': " + jsonAccessMessage(e));
    }
}

} // namespace attn
