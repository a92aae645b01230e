// SPDX-License-Identifier: MIT
#include "tokenizer/marian_tokenizer.h"

#include "core/error.h"
#include "core/input_file.h"
#include "io/json_input.h"
#include "tokenizer/added_tokens.h"
#include "tokenizer/hf_tokenizer_config.h"
#include "tokenizer/language_code.h"

#include <nlohmann/json.hpp>
#include <sentencepiece_processor.h>

#include <filesystem>
#include <tuple>

namespace fs = std::filesystem;

namespace attn {
namespace {

const std::string kWordStart = "\xE2\x96\x81"; // SentencePiece's "▁"

std::unique_ptr<sentencepiece::SentencePieceProcessor> loadSpm(const fs::path& path)
{
    if (!fs::exists(path)) throw Error(path.string(), "a MarianMT tokenizer needs this file (not found)");
    requireRegularFile(path.string(), file_caps::kTokenizer, "SentencePiece model");
    auto sp = std::make_unique<sentencepiece::SentencePieceProcessor>();
    const auto status = sp->Load(path.string());
    if (!status.ok()) throw Error(path.string(), "not a readable SentencePiece model: " + status.ToString());
    return sp;
}

/// A chunk of the text with the language codes removed, and where each of its bytes was in the text.
struct Stripped {
    std::string code; ///< the leading ">>xx<<", if any
    std::string text;
    std::vector<size_t> origin; ///< origin[i] = offset in the chunk of text[i]; origin[text.size()] = chunk end
};

/// HF's remove_language_code: a code matching ">>.+<<" at the start is kept as a token, and every match is removed.
Stripped removeLanguageCodes(const std::string& chunk)
{
    Stripped s;
    size_t plain = 0;
    for (auto [begin, end] = nextLanguageCode(chunk, 0); begin != std::string::npos;
         std::tie(begin, end) = nextLanguageCode(chunk, end)) {
        if (begin == 0) s.code = chunk.substr(0, end);
        for (size_t i = plain; i < begin; ++i) {
            s.text += chunk[i];
            s.origin.push_back(i);
        }
        plain = end;
    }
    for (size_t i = plain; i < chunk.size(); ++i) {
        s.text += chunk[i];
        s.origin.push_back(i);
    }
    s.origin.push_back(chunk.size());
    return s;
}

nlohmann::json readJson(const fs::path& path)
{
    if (!fs::exists(path)) throw Error(path.string(), "a MarianMT tokenizer needs this file (not found)");
    return readUntrustedJson(path.string(), file_caps::kTokenizer, "JSON");
}

/// transformers' clean_up_tokenization: the spaces its decoders leave before punctuation and English clitics.
std::string cleanUpTokenization(std::string text)
{
    static const std::pair<std::string, std::string> rules[]
        = { { " .", "." }, { " ?", "?" }, { " !", "!" }, { " ,", "," }, { " ' ", "'" }, { " n't", "n't" },
              { " 'm", "'m" }, { " 's", "'s" }, { " 've", "'ve" }, { " 're", "'re" } };
    for (const auto& [before, after] : rules)
        for (size_t pos = 0; (pos = text.find(before, pos)) != std::string::npos; pos += after.size())
            text.replace(pos, before.size(), after);
    return text;
}

} // namespace

MarianTokenizer::MarianTokenizer(const std::string& folder)
    : m_vocabPath((fs::path(folder) / "vocab.json").string())
    , m_source(loadSpm(fs::path(folder) / "source.spm"))
    , m_target(loadSpm(fs::path(folder) / "target.spm"))
{
    if (fs::exists(fs::path(folder) / "target_vocab.json"))
        throw Error((fs::path(folder) / "target_vocab.json").string(),
            "MarianMT models with separate source and target vocabularies are not supported");
    const nlohmann::json vocab = readJson(m_vocabPath);
    if (!vocab.is_object() || vocab.empty()) throw Error(m_vocabPath, "expected a JSON object of piece -> id");
    for (const auto& [piece, id] : vocab.items()) {
        if (!id.is_number_integer() || id.get<int64_t>() < 0)
            throw Error(m_vocabPath, "the id of \"" + piece + "\" is not a non-negative integer");
        const int64_t i = id.get<int64_t>();
        // n pieces with distinct ids leave no hole only with ids 0..n-1; a larger id is refused before allocating.
        if (static_cast<uint64_t>(i) >= vocab.size())
            throw Error(m_vocabPath,
                "the id " + std::to_string(i) + " of \"" + piece.substr(0, 40) + "\" is outside 0.."
                    + std::to_string(vocab.size() - 1) + " (the file defines " + std::to_string(vocab.size())
                    + " pieces)");
        if (i >= static_cast<int64_t>(m_pieces.size())) m_pieces.resize(static_cast<size_t>(i) + 1);
        if (!m_pieces[static_cast<size_t>(i)].empty())
            throw Error(m_vocabPath,
                "id " + std::to_string(i) + " is given to both \"" + m_pieces[static_cast<size_t>(i)] + "\" and \""
                    + piece + "\"");
        m_pieces[static_cast<size_t>(i)] = piece;
        m_ids[piece] = i;
    }
    const HfTokenizerConfig cfg = readHfTokenizerConfig(folder);
    const auto special = [&](const char* key, const char* fallback) {
        const std::string piece = cfg.token(key).value_or(fallback);
        const auto it = m_ids.find(piece);
        if (it == m_ids.end())
            throw Error(m_vocabPath, std::string(key) + " \"" + piece + "\" is not in the vocabulary");
        return it->second;
    };
    m_special.eos = special("eos_token", "</s>");
    m_special.unk = special("unk_token", "<unk>");
    m_special.pad = special("pad_token", "<pad>");
    // Unset, transformers up to 4.44 (the fixtures' 4.39 included) clean up; later versions default to false.
    const fs::path configPath = fs::path(folder) / "tokenizer_config.json";
    if (fs::exists(configPath)) {
        const nlohmann::json j = readJson(configPath);
        if (j.contains("clean_up_tokenization_spaces") && j["clean_up_tokenization_spaces"].is_boolean())
            m_cleanUpSpaces = j["clean_up_tokenization_spaces"].get<bool>();
    }
}

MarianTokenizer::~MarianTokenizer() = default;

int64_t MarianTokenizer::idOf(const std::string& piece) const
{
    const auto it = m_ids.find(piece);
    return it == m_ids.end() ? m_special.unk : it->second;
}

const std::string& MarianTokenizer::pieceOf(int64_t id) const
{
    if (id < 0 || id >= vocabSize() || m_pieces[static_cast<size_t>(id)].empty())
        throw Error(m_vocabPath, "token id " + std::to_string(id) + " is not in the vocabulary");
    return m_pieces[static_cast<size_t>(id)];
}

std::vector<Token> MarianTokenizer::encodeWith(
    const sentencepiece::SentencePieceProcessor& sp, const std::string& text, bool addSpecialTokens) const
{
    // Like HF's slow tokenizers, special tokens written in the text are matched first and the rest is segmented.
    AddedTokens specials;
    for (const int64_t id : { m_special.eos, m_special.unk, m_special.pad })
        specials.add(pieceOf(id), id, true);
    std::vector<Token> out;
    for (const AddedTokens::Segment& seg : specials.split(text)) {
        if (seg.id >= 0) {
            out.push_back({ seg.id, pieceOf(seg.id), seg.begin, seg.end, true, 0 });
            continue;
        }
        const Stripped chunk = removeLanguageCodes(text.substr(seg.begin, seg.end - seg.begin));
        if (!chunk.code.empty()) {
            const int64_t id = idOf(chunk.code);
            out.push_back({ id, chunk.code, seg.begin, seg.begin + chunk.code.size(), isSpecial(id), 0 });
        }
        const auto spt = sp.EncodeAsImmutableProto(chunk.text);
        for (const auto& p : spt.pieces()) {
            const int64_t id = idOf(p.piece());
            out.push_back({ id, p.piece(), seg.begin + chunk.origin[p.begin()], seg.begin + chunk.origin[p.end()],
                isSpecial(id), 0 });
        }
    }
    if (addSpecialTokens) out.push_back({ m_special.eos, pieceOf(m_special.eos), text.size(), text.size(), true, 0 });
    return out;
}

std::vector<Token> MarianTokenizer::encode(const std::string& text, bool addSpecialTokens) const
{
    return encodeWith(*m_source, text, addSpecialTokens);
}

std::vector<Token> MarianTokenizer::encodeTarget(const std::string& text, bool addSpecialTokens) const
{
    return encodeWith(*m_target, text, addSpecialTokens);
}

std::string MarianTokenizer::decode(const std::vector<int64_t>& ids, bool skipSpecial) const
{
    // HF's convert_tokens_to_string: special tokens are not given to SentencePiece but written as "piece ".
    std::string out;
    std::vector<std::string> run;
    for (const int64_t id : ids) {
        const std::string& piece = pieceOf(id);
        if (!isSpecial(id)) {
            run.push_back(piece);
            continue;
        }
        if (skipSpecial) continue;
        out += m_target->DecodePieces(run) + piece + " ";
        run.clear();
    }
    out += m_target->DecodePieces(run);
    for (size_t pos; (pos = out.find(kWordStart)) != std::string::npos;)
        out.replace(pos, kWordStart.size(), " ");
    const size_t first = out.find_first_not_of(" \t\n\r\f\v");
    if (first == std::string::npos) return "";
    out = out.substr(first, out.find_last_not_of(" \t\n\r\f\v") - first + 1);
    return m_cleanUpSpaces ? cleanUpTokenization(std::move(out)) : out;
}

std::string MarianTokenizer::tokenText(int64_t id) const
{
    std::string text = pieceOf(id);
    if (isSpecial(id)) return text;
    for (size_t pos; (pos = text.find(kWordStart)) != std::string::npos;)
        text.replace(pos, kWordStart.size(), " ");
    return text;
}

} // namespace attn
