// SPDX-License-Identifier: MIT
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attn::unicode {

/// Unicode general category (the two-letter codes of UnicodeData.txt).
enum class Category : uint8_t {
    Cn,
    Lu,
    Ll,
    Lt,
    Lm,
    Lo,
    Mn,
    Mc,
    Me,
    Nd,
    Nl,
    No,
    Pc,
    Pd,
    Ps,
    Pe,
    Pi,
    Pf,
    Po,
    Sm,
    Sc,
    Sk,
    So,
    Zs,
    Zl,
    Zp,
    Cc,
    Cf,
    Cs,
    Co
};

Category category(char32_t cp);
bool isLetter(char32_t cp); ///< \p{L}
bool isNumber(char32_t cp); ///< \p{N}
bool isPunctuation(char32_t cp); ///< \p{P}
bool isMark(char32_t cp); ///< \p{M}
bool isOther(char32_t cp); ///< \p{C}, unassigned included
bool isWhitespace(char32_t cp); ///< the White_Space property, i.e. regex \s

/// Full lowercase mapping of one code point (one or two code points).
std::u32string toLower(char32_t cp);
/// Canonical decomposition (NFD) of one code point, Hangul syllables included.
std::u32string decompose(char32_t cp);

/// One code point of a UTF-8 string with its byte span. Invalid bytes decode one by one as U+FFFD,
/// so spans always tile the input.
struct CodePoint {
    char32_t cp;
    size_t begin, end;
};
std::vector<CodePoint> decodeUtf8(const std::string& text);
void appendUtf8(std::string& out, char32_t cp);
std::string toUtf8(const std::u32string& text);

/// `bytes` as displayable UTF-8: valid sequences stay, every byte of an invalid one becomes "<0xNN>".
std::string displayBytes(const std::string& bytes);

} // namespace attn::unicode
