// SPDX-License-Identifier: MIT
#include "mechanisms/positions_page.h"

#include "mechanisms/line_plot.h"
#include "plots/heatmap_view.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QTabWidget>
#include <QVBoxLayout>

namespace attn::ui {

PositionsPage::PositionsPage(QWidget* parent)
    : QWidget(parent)
{
    m_sinusoid = new HeatmapView;
    m_rope = new HeatmapView;
    m_t5 = new HeatmapView;
    m_alibi = new HeatmapView;
    m_learned = new HeatmapView;
    m_sinusoid->setColormap(Colormap::Diverging);
    m_alibi->setColormap(Colormap::Diverging);
    m_learned->setColormap(Colormap::Diverging);
    m_learned->setCaption({ .title = tr("Learned positions") });
    for (HeatmapView* v : { m_sinusoid, m_rope, m_t5, m_alibi, m_learned }) {
        v->setControlsVisible(false); // tables, not attention: no per-row or mask options
        v->setMinimumWidth(200); // the plot's title would otherwise set the width of the whole tab
    }
    m_decay = new LinePlot;
    m_decay->setLegendVisible(false); // one series, named by the title
    m_note = new QLabel;
    m_note->setWordWrap(true);
    m_tables = new QTabWidget;
    m_tables->setObjectName("positionTables");
    m_tables->addTab(m_sinusoid, tr("sinusoidal"));
    m_tables->addTab(m_rope, tr("RoPE angles"));
    m_tables->addTab(m_t5, tr("T5 buckets"));
    m_tables->addTab(m_alibi, tr("ALiBi"));
    m_tables->addTab(m_learned, tr("learned"));
    auto* panels = new QHBoxLayout;
    panels->addWidget(m_tables, 1);
    panels->addWidget(m_decay, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(panels, 1);
    layout->addWidget(m_note);
}

void PositionsPage::showResult(const MechanismsResult& r)
{
    const PositionTables& p = *r.positions;
    const int64_t d = r.inputs.dim();
    m_sinusoid->setSnapshot(r.maps.sinusoid);
    m_sinusoid->setCaption(
        { .title = tr("Sinusoidal, d = %1").arg(d), .x = tr("dimension"), .y = tr("position"), .value = tr("value") });
    m_rope->setSnapshot(r.maps.rope);
    m_rope->setCaption({ .title = tr("RoPE angle pos·θ_i"),
        .x = tr("dimension pair i"),
        .y = tr("position"),
        .value = tr("radians") });
    m_t5->setSnapshot(r.maps.t5);
    m_t5->setCaption({ .title = tr("T5 bucket(j − i)"), .x = tr("key j"), .y = tr("query i"), .value = tr("bucket") });
    m_alibi->setSnapshot(r.maps.alibi);
    m_alibi->setCaption(
        { .title = tr("ALiBi, head %1 of %2").arg(std::max<int64_t>(r.inputs.head, 0)).arg(r.inputs.numHeads),
            .x = tr("key j"),
            .y = tr("query i"),
            .value = tr("bias") });
    // One slot for the model's own learned positions: an absolute table's row similarity (GPT-2, BERT, ViT / DeiT,
    // BART), or T5's relative bias per bucket and head (null: the note below says why).
    m_tables->setTabVisible(m_tables->indexOf(m_learned), r.maps.learned != nullptr); // empty axes look broken
    m_learned->setSnapshot(r.maps.learned);
    if (p.learned.size())
        m_learned->setCaption({ .title = tr("Learned: cos(p_i, p_j)"),
            .x = tr("position j"),
            .y = tr("position i"),
            .value = tr("cosine similarity") });
    else if (p.relativeBias.size())
        m_learned->setCaption({ .title = tr("T5 learned bias"),
            .x = tr("head (this one: h%1)").arg(std::max<int64_t>(r.inputs.head, 0)),
            .y = tr("bucket"),
            .value = tr("bias added to the score") });
    std::vector<double> distance, decay;
    for (size_t i = 0; i < p.ropeDecay.size(); ++i) {
        distance.push_back(static_cast<double>(i));
        decay.push_back(p.ropeDecay[i]);
    }
    m_decay->setAxes(tr("RoPE relative-distance decay, d = %1").arg(d), tr("relative distance"),
        tr("RoFormer bound (1 at distance 0)"));
    m_decay->setSeries(
        { { tr("(2/d) Σ_j |Σ_{i<j} e^{i·dist·θ_i}|, normalised"), distance, decay, QColor("#9467bd") } });
    const T5Bucketing& b = p.t5Bucketing;
    const QString legend = tr("RoPE: θ_i = %1^(−2i/d). T5: %2 buckets, max distance %3 (%4). ALiBi: slope·(j − i), "
                              "slope %5.<br>")
                               .arg(p.ropeTheta)
                               .arg(b.buckets)
                               .arg(b.maxDistance)
                               .arg(b.fromModel ? tr("the model's config") : tr("T5's defaults"))
                               .arg(r.alibi.rows() > 1 ? -r.alibi(1, 0) : 0.0);
    m_note->setText(legend
        + (r.inputs.layer < 0 ? tr("Synthetic input: no model positions.")
                : !r.inputs.isSelfAttention()
                ? tr("An RNN seq2seq model knows positions through its recurrence: the tables are drawn at its size "
                     "for comparison; the alibi and rope what-ifs need a self-attention head.")
                : p.modelHasRope
                ? tr("This model applies RoPE: q and k on the other pages are already rotated. Try the "
                     "alibi variant for ALiBi's bias on the same head.")
                : tr("This model has no RoPE (learned or no position embeddings). Try the alibi variant for "
                     "ALiBi's bias on the same head."))
        + (!p.learnedNote.empty()
                ? tr("<br>Learned table: %1").arg(QString::fromStdString(p.learnedNote).toHtmlEscaped())
                : p.learned.size() || r.inputs.layer < 0 ? QString()
                : p.relativeBias.size()
                ? tr("<br>T5's learned relative bias (block 0 of this stack, shared by every layer): bucket b of "
                     "head h is added to the score of every query-key pair in bucket b (the bucket map beside).")
                : tr("<br>Learned table: read for GPT-2 (wpe), BERT, ViT / DeiT (at their training image size), BART "
                     "(embed_positions, position p at row p + 2) and T5 (relative bias); none here."))
        + (r.inputs.isSelfAttention() ? tr(" The rope:THETA variant re-rotates the head with another base (0: none).")
                                      : QString()));
}

} // namespace attn::ui
