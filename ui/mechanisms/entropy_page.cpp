// SPDX-License-Identifier: MIT
#include "mechanisms/entropy_page.h"

#include "mechanisms/matrix_snapshot.h"
#include "plots/heatmap_view.h"

#include <QLabel>
#include <QVBoxLayout>

namespace attn::ui {

EntropyPage::EntropyPage(QWidget* parent)
    : QWidget(parent)
    , m_map(new HeatmapView)
    , m_flags(new QLabel)
{
    m_map->setObjectName("exportFigure");
    m_map->setControlsVisible(false); // a table of heads, not attention: no first-token or mask options
    m_flags->setWordWrap(true);
    m_flags->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_map, 1);
    layout->addWidget(m_flags);
}

void EntropyPage::showResult(const MechanismsResult& r)
{
    if (!r.entropy) {
        m_map->setSnapshot(nullptr);
        m_flags->setText(tr("The head-entropy map needs a model run: pick a model head, not synthetic input."));
        return;
    }
    const HeadEntropyMap& e = *r.entropy;
    Mat values(e.layers, e.heads);
    QStringList uniform, oneHot;
    for (int64_t l = 0; l < e.layers; ++l)
        for (int64_t h = 0; h < e.heads; ++h) {
            values(l, h) = e.at(l, h).normalizedEntropy;
            const QString name = QStringLiteral("L%1.H%2").arg(l).arg(h);
            const HeadActivity a = e.activity[static_cast<size_t>(l * e.heads + h)];
            if (a == HeadActivity::NearUniform) uniform << name;
            if (a == HeadActivity::NearOneHot) oneHot << name;
        }
    m_map->setSnapshot(matrixSnapshot(values, indexChips("L", e.layers), indexChips("H", e.heads)));
    m_map->setCaption({ .title = tr("Normalized entropy per head (1 = uniform over the visible keys)"),
        .x = tr("head"),
        .y = tr("layer"),
        .value = tr("entropy / log(keys)") });
    const HeadActivityThresholds t;
    m_flags->setText(tr("Near-uniform (≥ %1, candidates for pruning): %2<br>Near-one-hot (≤ %3): %4")
                         .arg(t.nearUniform)
                         .arg(uniform.isEmpty() ? tr("none") : uniform.join(", "))
                         .arg(t.nearOneHot)
                         .arg(oneHot.isEmpty() ? tr("none") : oneHot.join(", "))
        // The entropy flags candidates; what removing a decoder's head costs is measured by the pruning command.
        + (r.inputs.causal && r.request.source == HeadSource::Session
                ? tr("<br>Entropy only flags candidates: <tt>attnscope-cli prune MODEL --corpus FILE --out "
                     "DIR</tt> measures each head's importance (the loss when it is removed) and the greedy "
                     "pruning curve.")
                : QString()));
}

} // namespace attn::ui
