// SPDX-License-Identifier: MIT
#include "widgets/token_chips_view.h"

#include "model/token_text.h"

namespace attn::ui {

TokenChipsView::TokenChipsView(QWidget* parent)
    : QLabel(parent) {
    setObjectName("tokenChips");
    setWordWrap(true);
    setTextFormat(Qt::RichText);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    setText(tr("<i>Tokens appear here as you type.</i>"));
}

void TokenChipsView::setTokens(const std::vector<TokenChip>& tokens) {
    m_tokens = tokens;
    m_count = static_cast<int>(tokens.size());
    m_special = 0;
    for (const TokenChip& t : tokens)
        m_special += t.special ? 1 : 0;
    const size_t first = m_maxShown > 0 && m_count > m_maxShown ? static_cast<size_t>(m_count - m_maxShown) : 0;
    m_shown = m_count - static_cast<int>(first);
    QString html = first > 0 ? tr("<i>… %n earlier token(s)</i> ", nullptr, static_cast<int>(first)) : QString();
    for (size_t i = first; i < tokens.size(); ++i) {
        const TokenChip& t = tokens[i];
        const char* style
            = t.special ? "background-color:#f4c27a; color:#5a3300;" : "background-color:#d8e6f7; color:#10325a;";
        html += QStringLiteral("<span style=\"%1\" title=\"#%2 id %3%4\">&nbsp;%5&nbsp;</span> ")
                    .arg(QLatin1String(style))
                    .arg(i)
                    .arg(t.id)
                    .arg(t.special ? tr(" (special)") : QString())
                    .arg(displayToken(t).toHtmlEscaped());
    }
    setText(tokens.empty() ? tr("<i>(no tokens)</i>") : html);
}

} // namespace attn::ui
