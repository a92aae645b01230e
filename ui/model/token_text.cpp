// SPDX-License-Identifier: MIT
#include "model/token_text.h"

namespace attn::ui {

QString displayToken(const TokenChip& token) {
    QString t = QString::fromStdString(token.text);
    t.replace(QChar(0x0120), QChar(0x2423)); // GPT-2 'Ġ' (space byte)
    t.replace(QChar(0x2581), QChar(0x2423)); // SentencePiece '▁'
    t.replace(QChar(0x010A), QChar(0x21B5)); // GPT-2 'Ċ' (newline byte)
    t.replace(QChar('\n'), QChar(0x21B5));
    t.replace(QChar(' '), QChar(0x2423));
    return t.isEmpty() ? QStringLiteral("\u2205") : t;
}

QString elidedToken(const TokenChip& token, int maxChars) {
    const QString t = displayToken(token);
    return t.size() <= maxChars ? t : t.left(std::max(1, maxChars - 1)) + QChar(0x2026);
}

} // namespace attn::ui
