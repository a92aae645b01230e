// SPDX-License-Identifier: MIT
#include "tokenizer/gpt2_pretokenizer.h"

#include "tokenizer/unicode.h"

namespace attn {
namespace {

enum class CharClass { Letter, Number, Space, Other };

CharClass classify(char32_t cp)
{
    if (unicode::isWhitespace(cp)) return CharClass::Space;
    if (unicode::isLetter(cp)) return CharClass::Letter;
    if (unicode::isNumber(cp)) return CharClass::Number;
    return CharClass::Other;
}

/// Length (in code points) of a contraction starting at i, or 0.
size_t contractionAt(const std::vector<unicode::CodePoint>& cps, size_t i)
{
    if (cps[i].cp != U'\'' || i + 1 >= cps.size()) return 0;
    const char32_t a = cps[i + 1].cp;
    if (a == U's' || a == U't' || a == U'm' || a == U'd') return 2;
    const char32_t b = i + 2 < cps.size() ? cps[i + 2].cp : 0;
    if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l')) return 3;
    return 0;
}

} // namespace

std::vector<std::pair<size_t, size_t>> gpt2PreTokenize(const std::string& text)
{
    const std::vector<unicode::CodePoint> cps = unicode::decodeUtf8(text);
    std::vector<CharClass> cls;
    cls.reserve(cps.size());
    for (const auto& c : cps)
        cls.push_back(classify(c.cp));

    std::vector<std::pair<size_t, size_t>> out;
    const size_t n = cps.size();
    size_t i = 0;
    while (i < n) {
        size_t end = i; // exclusive, in code points
        if (const size_t c = contractionAt(cps, i)) {
            end = i + c;
        } else {
            // " ?X+" for X in letters, numbers, other: the optional space is U+0020 only.
            const size_t start = cps[i].cp == U' ' && i + 1 < n && cls[i + 1] != CharClass::Space ? i + 1 : i;
            if (cls[start] != CharClass::Space) {
                end = start;
                while (end < n && cls[end] == cls[start])
                    ++end;
            } else {
                // \s+(?!\S) backs off one whitespace char when the run is followed by a non-space; \s+ otherwise.
                end = i;
                while (end < n && cls[end] == CharClass::Space)
                    ++end;
                if (end < n && end - i >= 2) --end;
            }
        }
        out.emplace_back(cps[i].begin, cps[end - 1].end);
        i = end;
    }
    return out;
}

} // namespace attn
