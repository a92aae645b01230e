// SPDX-License-Identifier: MIT
#include "tokenizer/unicode.h"

#include "tokenizer/unicode_tables.h"

#include <algorithm>
#include <cstdio>

namespace attn::unicode {
namespace {

template <class Table, class Key> const auto* findEntry(const Table& table, Key cp)
{
    const auto* it = std::lower_bound(
        std::begin(table), std::end(table), cp, [](const auto& e, Key value) { return e.cp < value; });
    return it != std::end(table) && it->cp == cp ? it : nullptr;
}

// Hangul syllables decompose algorithmically (Unicode 3.12), so the table leaves them out.
constexpr char32_t kHangulBase = 0xAC00, kHangulCount = 11172, kJamoL = 0x1100, kJamoV = 0x1161, kJamoT = 0x11A7;
constexpr char32_t kJamoVCount = 21, kJamoTCount = 28;

} // namespace

Category category(char32_t cp)
{
    using unicode_tables::kCategories;
    const auto* it = std::upper_bound(std::begin(kCategories), std::end(kCategories), static_cast<uint32_t>(cp),
        [](uint32_t value, const auto& r) { return value < r.first; });
    if (it == std::begin(kCategories)) return Category::Cn;
    --it;
    return cp <= it->last ? static_cast<Category>(it->category) : Category::Cn;
}

bool isLetter(char32_t cp)
{
    const Category c = category(cp);
    return c >= Category::Lu && c <= Category::Lo;
}

bool isNumber(char32_t cp)
{
    const Category c = category(cp);
    return c >= Category::Nd && c <= Category::No;
}

bool isPunctuation(char32_t cp)
{
    const Category c = category(cp);
    return c >= Category::Pc && c <= Category::Po;
}

bool isMark(char32_t cp)
{
    const Category c = category(cp);
    return c >= Category::Mn && c <= Category::Me;
}

bool isOther(char32_t cp)
{
    const Category c = category(cp);
    return c == Category::Cn || c >= Category::Cc;
}

bool isWhitespace(char32_t cp)
{
    switch (cp) {
    case 0x09:
    case 0x0A:
    case 0x0B:
    case 0x0C:
    case 0x0D:
    case 0x20:
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
        return true;
    default:
        return cp >= 0x2000 && cp <= 0x200A;
    }
}

std::u32string toLower(char32_t cp)
{
    const auto* e = findEntry(unicode_tables::kLower, static_cast<uint32_t>(cp));
    if (!e) return std::u32string(1, cp);
    std::u32string out(1, e->lower0);
    if (e->lower1) out.push_back(e->lower1);
    return out;
}

std::u32string decompose(char32_t cp)
{
    if (cp >= kHangulBase && cp < kHangulBase + kHangulCount) {
        const char32_t s = cp - kHangulBase;
        std::u32string out { kJamoL + s / (kJamoVCount * kJamoTCount),
            kJamoV + (s % (kJamoVCount * kJamoTCount)) / kJamoTCount };
        if (s % kJamoTCount) out.push_back(kJamoT + s % kJamoTCount);
        return out;
    }
    const auto* e = findEntry(unicode_tables::kDecomposition, static_cast<uint32_t>(cp));
    if (!e) return std::u32string(1, cp);
    std::u32string out;
    for (uint32_t p : e->parts)
        if (p) out.push_back(p);
    return out;
}

std::vector<CodePoint> decodeUtf8(const std::string& text)
{
    std::vector<CodePoint> out;
    out.reserve(text.size());
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
    size_t i = 0;
    while (i < text.size()) {
        const unsigned char b = byte(i);
        size_t len = 0;
        char32_t cp = 0;
        char32_t minimum = 0;
        if (b < 0x80) {
            len = 1;
            cp = b;
        } else if ((b & 0xE0) == 0xC0) {
            len = 2, cp = b & 0x1F, minimum = 0x80;
        } else if ((b & 0xF0) == 0xE0) {
            len = 3, cp = b & 0x0F, minimum = 0x800;
        } else if ((b & 0xF8) == 0xF0) {
            len = 4, cp = b & 0x07, minimum = 0x10000;
        }
        bool valid = len > 0 && i + len <= text.size();
        for (size_t k = 1; valid && k < len; ++k) {
            valid = (byte(i + k) & 0xC0) == 0x80;
            cp = (cp << 6) | (byte(i + k) & 0x3F);
        }
        valid = valid && cp >= minimum && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
        if (!valid) {
            out.push_back({ 0xFFFD, i, i + 1 });
            ++i;
            continue;
        }
        out.push_back({ cp, i, i + len });
        i += len;
    }
    return out;
}

void appendUtf8(std::string& out, char32_t cp)
{
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

std::string toUtf8(const std::u32string& text)
{
    std::string out;
    for (char32_t cp : text)
        appendUtf8(out, cp);
    return out;
}

std::string displayBytes(const std::string& bytes)
{
    std::string out;
    for (const CodePoint& c : decodeUtf8(bytes)) {
        const bool invalid = c.cp == 0xFFFD && bytes.compare(c.begin, c.end - c.begin, "\xEF\xBF\xBD") != 0;
        if (!invalid) {
            out.append(bytes, c.begin, c.end - c.begin);
            continue;
        }
        char buf[8];
        std::snprintf(buf, sizeof buf, "<0x%02X>", static_cast<unsigned char>(bytes[c.begin]));
        out += buf;
    }
    return out;
}

} // namespace attn::unicode
