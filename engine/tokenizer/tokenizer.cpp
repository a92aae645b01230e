// SPDX-License-Identifier: MIT
#include "tokenizer/tokenizer.h"

namespace attn {

std::vector<Token> Tokenizer::encodePair(
    const std::string& first, const std::string& second, bool addSpecialTokens) const
{
    std::vector<Token> out = encode(first, addSpecialTokens);
    for (Token t : encode(second, false)) {
        t.typeId = 1;
        out.push_back(std::move(t));
    }
    return out;
}

std::vector<Token> Tokenizer::encodeTarget(const std::string& text, bool addSpecialTokens) const
{
    return encode(text, addSpecialTokens);
}

bool Tokenizer::isSpecial(int64_t id) const
{
    const SpecialTokenIds& s = m_special;
    return id >= 0
        && (id == s.bos || id == s.eos || id == s.pad || id == s.cls || id == s.sep || id == s.mask || id == s.unk);
}

std::vector<int64_t> tokenIds(const std::vector<Token>& tokens)
{
    std::vector<int64_t> ids;
    ids.reserve(tokens.size());
    for (const Token& t : tokens)
        ids.push_back(t.id);
    return ids;
}

} // namespace attn
