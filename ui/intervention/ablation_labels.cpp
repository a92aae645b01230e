// SPDX-License-Identifier: MIT
#include "intervention/ablation_labels.h"

#include <QObject>
#include <QStringList>

namespace attn::ui {

QString ablationModeText(const Ablation& ablation)
{
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

QString ablationLabel(const Ablation& ablation)
{
    QStringList heads;
    for (const HeadRef& h : ablation.heads)
        heads << QStringLiteral("L%1.H%2").arg(h.layer).arg(h.head);
    return heads.join(", ") + " " + ablationModeText(ablation);
}

std::map<std::pair<int64_t, int64_t>, QString> headMarks(const std::vector<Ablation>& ablations)
{
    std::map<std::pair<int64_t, int64_t>, QString> marks;
    for (const Ablation& a : ablations)
        for (const HeadRef& h : a.heads) {
            QString& mark = marks[{ h.layer, h.head }];
            mark += (mark.isEmpty() ? QString() : QStringLiteral(" + ")) + ablationModeText(a);
        }
    return marks;
}

QString shownToken(const std::unordered_map<int64_t, std::string>& text, int64_t id)
{
    const auto it = text.find(id);
    const QString shown = it == text.end() ? QStringLiteral("[%1]").arg(id) : QString::fromStdString(it->second);
    return QString(shown).replace(' ', QStringLiteral("␣")).replace('\n', QStringLiteral("⏎"));
}

QString continuationHtml(const std::unordered_map<int64_t, std::string>& text, const std::vector<int64_t>& clean,
    const std::vector<int64_t>& changed)
{
    const auto joined = [&](const std::vector<int64_t>& ids, size_t from, size_t to) {
        QString out;
        for (size_t i = from; i < to; ++i) {
            const auto it = text.find(ids[i]);
            out += it == text.end() ? QStringLiteral("[%1]").arg(ids[i]) : QString::fromStdString(it->second);
        }
        return out.replace('\n', QStringLiteral("⏎")).toHtmlEscaped().replace(' ', QStringLiteral("&nbsp;"));
    };
    size_t same = 0;
    while (same < clean.size() && same < changed.size() && clean[same] == changed[same])
        ++same;
    const QString where = same == clean.size() && same == changed.size()
        ? QObject::tr("the same")
        : QObject::tr("differs from token %1").arg(same + 1);
    return QObject::tr(
        "Greedy continuation — unmodified: <b>%1</b><br>ablated (%2): <b>%3<span style=\"color:#c01010\">%4</span></b>")
        .arg(joined(clean, 0, clean.size()), where, joined(changed, 0, same), joined(changed, same, changed.size()));
}

} // namespace attn::ui
