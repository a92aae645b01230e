// SPDX-License-Identifier: MIT
#include "tokenizer/gguf_tokenizer.h"

#include "core/error.h"
#include "io/gguf.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/llama2c_tokenizer.h"
#include "tokenizer/wordpiece_tokenizer.h"

#include <cmath>

namespace attn {
namespace {

const std::string kSpace = "\xE2\x96\x81"; // U+2581, SentencePiece's visible space

/// llama.cpp's token types (llama_token_type): CONTROL and USER_DEFINED pieces are matched verbatim in the text.
constexpr int64_t kControl = 3;
constexpr int64_t kUserDefined = 4;
constexpr int64_t kLastTokenType = 6; // BYTE

std::string replaceAll(std::string s, const std::string& from, const std::string& to)
{
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

/// An id key: absent, or llama.cpp's "none" (-1 stored as uint32 4294967295), gives -1.
int64_t tokenId(const GgufFile& g, const std::string& key, size_t vocab)
{
    const auto id = g.getInt(key);
    if (!id || *id < 0 || *id == 0xFFFFFFFFll) return -1;
    if (*id >= static_cast<int64_t>(vocab))
        throw Error(
            g.path(), key + " = " + std::to_string(*id) + " is outside the vocabulary of " + std::to_string(vocab));
    return *id;
}

SpecialTokenIds specialIds(const GgufFile& g, size_t vocab)
{
    SpecialTokenIds s;
    s.bos = tokenId(g, "tokenizer.ggml.bos_token_id", vocab);
    s.eos = tokenId(g, "tokenizer.ggml.eos_token_id", vocab);
    s.unk = tokenId(g, "tokenizer.ggml.unknown_token_id", vocab);
    s.pad = tokenId(g, "tokenizer.ggml.padding_token_id", vocab);
    s.sep = tokenId(g, "tokenizer.ggml.seperator_token_id", vocab); // sic, llama.cpp's key
    s.cls = tokenId(g, "tokenizer.ggml.cls_token_id", vocab);
    s.mask = tokenId(g, "tokenizer.ggml.mask_token_id", vocab);
    return s;
}

/// Control and user-defined pieces, matched in the raw text as Hugging Face matches added tokens.
AddedTokens addedTokens(const GgufFile& g, const std::vector<std::string>& pieces)
{
    AddedTokens added;
    const auto types = g.getNumbers("tokenizer.ggml.token_type");
    if (!types) return added;
    if (types->size() != pieces.size())
        throw Error(g.path(),
            "tokenizer.ggml.token_type has " + std::to_string(types->size()) + " entries for "
                + std::to_string(pieces.size()) + " tokens");
    for (size_t id = 0; id < pieces.size(); ++id) {
        // Compared as read: a float32 array may hold 1e30 or NaN, whose conversion to an integer is undefined.
        const double type = (*types)[id];
        if (!(type >= 0 && type <= kLastTokenType) || type != std::floor(type))
            throw Error(g.path(),
                "tokenizer.ggml.token_type[" + std::to_string(id) + "] = " + std::to_string(type)
                    + " is not a llama.cpp token type (0 to " + std::to_string(kLastTokenType) + ")");
        if ((type == kControl || type == kUserDefined) && !pieces[id].empty())
            added.add(pieces[id], static_cast<int64_t>(id), type == kControl);
    }
    return added;
}

std::unique_ptr<Tokenizer> spm(const GgufFile& g, std::vector<std::string> pieces)
{
    const auto scores = g.getNumbers("tokenizer.ggml.scores");
    // Some writers keep a longer score list than the token list (the kq256 fixture: 259 for 64); the first ones
    // belong to the tokens.
    if (!scores || scores->size() < pieces.size())
        throw Error(g.path(), "tokenizer.ggml.scores is missing or shorter than tokenizer.ggml.tokens");
    std::vector<float> s(scores->begin(), scores->begin() + static_cast<std::ptrdiff_t>(pieces.size()));
    for (std::string& p : pieces)
        p = replaceAll(std::move(p), kSpace, " ");
    SpecialTokenIds special = specialIds(g, pieces.size());
    return std::make_unique<Llama2cTokenizer>(g.path(), std::move(pieces), std::move(s), special);
}

std::unique_ptr<Tokenizer> bpe(const GgufFile& g, std::vector<std::string> pieces)
{
    const std::string pre = g.getString("tokenizer.ggml.pre").value_or("default");
    if (pre != "gpt-2" && pre != "default")
        throw Error(g.path(),
            "tokenizer.ggml.pre \"" + pre
                + "\" is not supported (this build pre-tokenizes byte-level BPE as GPT-2 does); give the model's "
                  "tokenizer.json with --tokenizer");
    BpeTokenizer::Spec spec;
    spec.path = g.path();
    spec.mergesPath = g.path() + " (tokenizer.ggml.merges)";
    const auto merges = g.getStrings("tokenizer.ggml.merges");
    if (!merges) throw Error(g.path(), "a gpt2 tokenizer needs tokenizer.ggml.merges");
    for (size_t i = 0; i < merges->size(); ++i) {
        const std::string& m = (*merges)[i];
        const size_t space = m.find(' ');
        if (space == std::string::npos || space == 0 || space + 1 == m.size())
            throw Error(
                g.path(), "tokenizer.ggml.merges[" + std::to_string(i) + "] is not \"LEFT RIGHT\": '" + m + "'");
        spec.merges.emplace_back(m.substr(0, space), m.substr(space + 1));
    }
    spec.special = specialIds(g, pieces.size());
    spec.added = addedTokens(g, pieces);
    if (g.getBool("tokenizer.ggml.add_bos_token").value_or(false) && spec.special.bos >= 0)
        spec.prefix = { spec.special.bos };
    if (g.getBool("tokenizer.ggml.add_eos_token").value_or(false) && spec.special.eos >= 0)
        spec.suffix = { spec.special.eos };
    spec.vocab = std::move(pieces);
    return std::make_unique<BpeTokenizer>(std::move(spec));
}

/// convert_hf_to_gguf.py writes BERT vocabularies with a "phantom space": "[X]" stays, "##x" becomes "x" and every
/// other piece "▁x". This undoes it.
std::unique_ptr<Tokenizer> wordPiece(const GgufFile& g, std::vector<std::string> pieces)
{
    WordPieceTokenizer::Spec spec;
    spec.path = g.path();
    for (std::string& p : pieces) {
        if (p.size() >= 2 && p.front() == '[' && p.back() == ']') continue;
        p = p.rfind(kSpace, 0) == 0 ? p.substr(kSpace.size()) : "##" + p;
    }
    spec.special = specialIds(g, pieces.size());
    spec.added = addedTokens(g, pieces);
    spec.vocab = std::move(pieces);
    return std::make_unique<WordPieceTokenizer>(std::move(spec));
}

} // namespace

std::unique_ptr<Tokenizer> loadGgufTokenizer(const GgufFile& g)
{
    const auto model = g.getString("tokenizer.ggml.model");
    auto pieces = g.getStrings("tokenizer.ggml.tokens");
    if (!model || !pieces || pieces->empty())
        throw Error(g.path(), "this GGUF file has no vocabulary (tokenizer.ggml.model / tokenizer.ggml.tokens)");
    if (*model == "llama") return spm(g, std::move(*pieces));
    if (*model == "gpt2") return bpe(g, std::move(*pieces));
    if (*model == "bert") return wordPiece(g, std::move(*pieces));
    throw Error(g.path(),
        "tokenizer.ggml.model \"" + *model
            + "\" is not supported (llama, gpt2 and bert are); give a tokenizer with "
              "--tokenizer");
}

std::unique_ptr<Tokenizer> loadGgufTokenizer(const std::string& path)
{
    return loadGgufTokenizer(GgufFile(path));
}

} // namespace attn
