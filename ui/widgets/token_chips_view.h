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
    int count() const { return m_count; }
    int specialCount() const { return m_special; }
    const std::vector<TokenChip>& tokens() const { return m_tokens; }

private:
    std::vector<TokenChip> m_tokens;
    int m_count = 0;
    int m_special = 0;
};

} // namespace attn::ui
