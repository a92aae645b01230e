// SPDX-License-Identifier: MIT
#include "intervention/ablation_labels.h"

#include <QStringList>

namespace attn::ui {

QString ablationModeText(const Ablation& ablation) {
    switch (ablation.mode) {
    case AblationMode::Zero:
        return QStringLiteral("zero");
    case AblationMode::Mean:
        return QStringLiteral("mean");
    case AblationMode::Scale:
        break;
    }
    return QStringLiteral("x%1").arg(static_cast<double>(ablation.factor), 0, 'g', 4);
}

QString ablationLabel(const Ablation& ablation) {
    QStringList heads;
    for (const HeadRef& h : ablation.heads)
        heads << QStringLiteral("L%1.H%2").arg(h.layer).arg(h.head);
    return heads.join(", ") + " " + ablationModeText(ablation);
}

std::map<std::pair<int64_t, int64_t>, QString> headMarks(const std::vector<Ablation>& ablations) {
    std::map<std::pair<int64_t, int64_t>, QString> marks;
    for (const Ablation& a : ablations)
        for (const HeadRef& h : a.heads) {
            QString& mark = marks[{ h.layer, h.head }];
            mark += (mark.isEmpty() ? QString() : QStringLiteral(" + ")) + ablationModeText(a);
        }
    return marks;
}

QString shownToken(const std::unordered_map<int64_t, std::string>& text, int64_t id) {
    const auto it = text.find(id);
    const QString shown = it == text.end() ? QStringLiteral("[%1]").arg(id) : QString::fromStdString(it->second);
    return QString(shown).replace(' ', QStringLiteral("␣")).replace('\n', QStringLiteral("⏎"));
}

} // namespace attn::ui
