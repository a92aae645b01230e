// SPDX-License-Identifier: MIT
#pragma once
#include "model/attention_snapshot.h"

#include <QLabel>

#include <vector>

namespace attn::ui {

/// The tokenized input as a wrapped row of chips; special tokens ([CLS], <s>, ...) in a different colour.
class TokenChipsView : public QLabel {
    Q_OBJECT
public:
    explicit TokenChipsView(QWidget* parent = nullptr);
    void setTokens(const std::vector<TokenChip>& tokens);
    /// Shows at most the last `count` tokens after a "… N earlier" note (0 = all). Laying out rich text costs time
    /// per chip, and the decode tab sets the tokens many times a second while its heatmap shows all of them anyway.
    void setMaxShown(int count) { m_maxShown = count; }
    int count() const { return m_count; }
    /// Chips drawn (count() minus those folded into the note).
    int shownCount() const { return m_shown; }
    int specialCount() const { return m_special; }
    const std::vector<TokenChip>& tokens() const { return m_tokens; }

private:
    std::vector<TokenChip> m_tokens;
    int m_count = 0;
    int m_shown = 0;
    int m_maxShown = 0;
    int m_special = 0;
};

} // namespace attn::ui
