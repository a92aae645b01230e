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

} // namespace attn::ui
