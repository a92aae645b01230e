// SPDX-License-Identifier: MIT
#include "mechanisms/entropy_page.h"

#include "mechanisms/matrix_snapshot.h"
#include "plots/heatmap_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <utility>
#include <vector>

namespace attn::ui {

EntropyPage::EntropyPage(QWidget* parent)
    : QWidget(parent)
    , m_map(new HeatmapView)
    , m_flags(new QLabel)
    , m_flagged(new QComboBox)
    , m_ablate(new QPushButton(tr("Ablate on the Intervene tab")))
    , m_pruning(new QPushButton(tr("Importance and pruning…")))
{
    m_map->setControlsVisible(false); // a table of heads, not attention: no first-token or mask options
    m_flags->setWordWrap(true);
    m_flags->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_flagged->setObjectName("entropyFlaggedHead");
    m_flagged->setToolTip(tr("A head the entropy map flags"));
    m_ablate->setObjectName("entropyAblate");
    m_ablate->setToolTip(tr("Zero this head on the Intervene tab (same model and input): the change of the next-token "
                            "distribution is what removing it costs"));
    connect(m_ablate, &QPushButton::clicked, this, [this] {
        const qint64 index = m_flagged->currentData().toLongLong();
        if (m_heads > 0 && index >= 0) emit ablateRequested(index / m_heads, index % m_heads);
    });
    m_pruning->setObjectName("entropyPruning");
    m_pruning->setToolTip(tr("The Pruning tab: every head's measured importance and the greedy pruning curve"));
    connect(m_pruning, &QPushButton::clicked, this, &EntropyPage::pruningRequested);
    auto* prune = new QHBoxLayout;
    prune->addWidget(new QLabel(tr("Flagged head:")));
    prune->addWidget(m_flagged);
    prune->addWidget(m_ablate);
    prune->addWidget(m_pruning);
    prune->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_map, 1);
    layout->addWidget(m_flags);
    layout->addLayout(prune);
}

void EntropyPage::showResult(const MechanismsResult& r)
{
    m_flagged->clear();
    m_heads = 0;
    if (!r.entropy) {
        m_ablate->setEnabled(false);
        m_flagged->setEnabled(false);
        m_map->setSnapshot(nullptr);
        m_flags->setText(tr("The head-entropy map needs a model run: pick a model head, not synthetic input."));
        return;
    }
    const HeadEntropyMap& e = *r.entropy;
    Mat values(e.layers, e.heads);
    QStringList uniform, oneHot;
    std::vector<std::pair<QString, qlonglong>> oneHotItems; // listed after the near-uniform ones
    m_heads = e.heads;
    for (int64_t l = 0; l < e.layers; ++l)
        for (int64_t h = 0; h < e.heads; ++h) {
            values(l, h) = e.at(l, h).normalizedEntropy;
            const QString name = QStringLiteral("L%1.H%2").arg(l).arg(h);
            const int64_t index = l * e.heads + h;
            const HeadActivity a = e.activity[static_cast<size_t>(index)];
            if (a == HeadActivity::NearUniform) {
                uniform << name;
                m_flagged->addItem(tr("%1 (near-uniform)").arg(name), static_cast<qlonglong>(index));
            }
            if (a == HeadActivity::NearOneHot) {
                oneHot << name;
                oneHotItems.emplace_back(tr("%1 (near-one-hot)").arg(name), static_cast<qlonglong>(index));
            }
        }
    for (const auto& [text, index] : oneHotItems)
        m_flagged->addItem(text, index);
    // The Intervene tab changes decoders run on the main input, the model and tokens this map was computed from.
    const bool canAblate = r.inputs.causal && r.request.source == HeadSource::Session;
    m_flagged->setEnabled(canAblate && m_flagged->count() > 0);
    m_ablate->setEnabled(canAblate && m_flagged->count() > 0);
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
        // The entropy flags candidates; what removing a decoder's head costs is measured on the Intervene tab (this
        // input) and by the pruning command (a corpus).
        + (canAblate ? tr("<br>Entropy only flags candidates: ablate one on the Intervene tab to see what removing it "
                          "changes on this input; the Pruning tab (or <tt>attnscope-cli prune MODEL --corpus FILE --out "
                          "DIR</tt>) measures each head's importance and the greedy pruning curve.")
                     : tr("<br>Ablating a head (the Intervene tab) needs a decoder model's head on the main input.")));
}

} // namespace attn::ui
