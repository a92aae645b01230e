// SPDX-License-Identifier: MIT
#include "mechanisms/compare_page.h"

#include "plots/colormaps.h"
#include "plots/heatmap_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace attn::ui {

QString metricText(double value)
{
    return std::isfinite(value) ? QString::number(value, 'g', 4) : QObject::tr("n/a");
}

QString selfAttentionOnly(const MechanismsResult& r)
{
    if (r.inputs.isSelfAttention()) return {};
    const bool transformer = r.inputs.learned.kind == LearnedScoreKind::None;
    const QString head = transformer
        ? QObject::tr("a transformer's cross-attention (%1 decoder queries over %2 encoder keys)")
              .arg(r.inputs.tokens())
              .arg(r.inputs.keyCount())
        : QObject::tr("an RNN seq2seq model's cross-attention with its learned %1 score")
              .arg(QString::fromStdString(learnedScoreName(r.inputs.learned.kind)));
    return QObject::tr("This head is %1: the scoring functions (Exact vs variant), the temperature and the entropy "
                       "apply; this page needs a self-attention head (%2).")
        .arg(head,
            transformer ? QObject::tr("pick the encoder or decoder block, or synthetic input")
                        : QObject::tr("a transformer's or synthetic input"));
}

ComparePage::ComparePage(QWidget* parent)
    : QWidget(parent)
{
    m_exact = new HeatmapView;
    m_variant = new HeatmapView;
    m_difference = new HeatmapView;
    m_difference->setColormap(Colormap::Diverging);
    for (HeatmapView* v : { m_exact, m_variant, m_difference }) {
        v->setControlsVisible(false); // one bar above sets the colours of exact and variant together
        // The plot's title would otherwise set the width (and, once painted, the height) of the whole tab.
        v->setMinimumSize(200, 160);
    }
    // Short titles before the first result: the generic placeholder is too long for half of the page.
    m_exact->setCaption({ .title = tr("exact") });
    m_variant->setCaption({ .title = tr("variant") });
    m_difference->setCaption({ .title = tr("variant − exact"), .value = tr("difference") });

    auto* colormap = new QComboBox;
    for (Colormap map : allColormaps())
        colormap->addItem(colormapName(map), static_cast<int>(map));
    auto* scale = new QComboBox;
    colormap->setToolTip(tr("How weights map to colours, in both maps"));
    scale->setToolTip(tr("Linear, log10 or per-row scaling, in both maps"));
    scale->addItem(tr("linear"), static_cast<int>(ScaleMode::Linear));
    scale->addItem(tr("log10"), static_cast<int>(ScaleMode::Log));
    scale->addItem(tr("per-row normalized"), static_cast<int>(ScaleMode::RowNormalized));
    connect(colormap, &QComboBox::currentIndexChanged, this, [this, colormap] {
        for (HeatmapView* v : { m_exact, m_variant })
            v->setColormap(static_cast<Colormap>(colormap->currentData().toInt()));
    });
    connect(scale, &QComboBox::currentIndexChanged, this, [this, scale] {
        HeatmapOptions o;
        o.scale = static_cast<ScaleMode>(scale->currentData().toInt());
        for (HeatmapView* v : { m_exact, m_variant })
            v->setOptions(o);
    });
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Colormap (exact, variant):")));
    bar->addWidget(colormap);
    bar->addWidget(new QLabel(tr("Scale:")));
    bar->addWidget(scale);
    // Wrapped: on one line it set the page's minimum to 936 px, and with the Input and Model docks opened beside the
    // tab the window grew past 1024 px.
    auto* hint = new QLabel(tr("Difference: diverging about 0. Wheel zooms, drag pans, hover reads."));
    hint->setWordWrap(true);
    bar->addWidget(hint, 1);

    m_metrics = new QTableWidget(0, 2);
    m_metrics->setObjectName("mechanismMetrics");
    m_metrics->setHorizontalHeaderLabels({ tr("metric"), tr("value") });
    m_metrics->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_metrics->horizontalHeader()->setStretchLastSection(true);
    m_metrics->verticalHeader()->hide();
    m_metrics->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_notes = new QLabel;
    m_notes->setWordWrap(true);
    m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notes->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    auto* numbers = new QWidget;
    auto* numbersLayout = new QVBoxLayout(numbers);
    numbersLayout->setContentsMargins(4, 4, 4, 4);
    numbersLayout->addWidget(m_metrics, 1);
    numbersLayout->addWidget(m_notes);

    // Exact beside one of: the variant's map, the difference, the numbers. Side by side with the numbers, three
    // maps at 1024x700 kept about 65 px of cells each.
    m_variantTabs = new QTabWidget;
    m_variantTabs->setObjectName("mechanismVariantTabs");
    m_variantTabs->addTab(m_variant, tr("variant"));
    m_variantTabs->addTab(m_difference, tr("variant − exact"));
    m_variantTabs->addTab(numbers, tr("numbers"));
    auto* maps = new QWidget;
    auto* mapsLayout = new QHBoxLayout(maps);
    mapsLayout->setContentsMargins(0, 0, 0, 0);
    mapsLayout->addWidget(m_exact, 1);
    mapsLayout->addWidget(m_variantTabs, 1);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(maps, 1);
}

void ComparePage::showResult(const MechanismsResult& r)
{
    const MechanismReport& rep = r.report;
    m_exact->setSnapshot(r.maps.exact);
    m_exact->setCaption({ .title = tr("exact") });
    const QString variant = QString::fromStdString(r.request.variant);
    m_variant->setSnapshot(r.maps.variant);
    m_difference->setSnapshot(r.maps.difference);
    if (rep.variant.probsOverKeys) {
        m_variant->setCaption({ .title = variant });
        m_difference->setCaption(
            { .title = rep.variant.unmaskedReference ? tr("variant − unmasked") : tr("variant − exact"),
                .value = tr("difference") });
    } else {
        // Linformer: rows are queries, columns the k projected positions; its difference is taken on the outputs.
        m_variant->setCaption({ .title = variant, .x = tr("row of E k"), .y = tr("query") });
        m_difference->setCaption({ .title = tr("out − unmasked out"),
            .x = tr("value dimension"),
            .y = tr("query"),
            .value = tr("difference") });
    }
    m_variantTabs->setTabText(0, variant);
    m_variantTabs->setTabText(1, m_difference->caption().title);
    const MechanismMetrics& m = rep.metrics;
    std::vector<std::pair<QString, double>> rows = { { "kl_mean", m.klMean }, { "mass_kept", m.massKept },
        { "out_rel_err", m.outRelErr }, { "entropy_mean", m.entropyMean }, { "exact_entropy_mean", m.exactEntropyMean },
        { "max_weight_mean", m.maxWeightMean } };
    for (const auto& [name, value] : rep.variant.numbers)
        rows.emplace_back(QString::fromStdString(name), value);
    m_metrics->setRowCount(static_cast<int>(rows.size()));
    for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
        m_metrics->setItem(i, 0, new QTableWidgetItem(rows[static_cast<size_t>(i)].first));
        m_metrics->setItem(i, 1, new QTableWidgetItem(metricText(rows[static_cast<size_t>(i)].second)));
    }
    QString notes
        = tr("<b>%1</b> on %2").arg(variant.toHtmlEscaped(), QString::fromStdString(r.inputs.origin).toHtmlEscaped());
    if (r.inputs.layer >= 0) notes += tr(", layer %1 head %2").arg(r.inputs.layer).arg(r.inputs.head);
    for (const auto& [name, text] : rep.variant.notes)
        notes += QStringLiteral("<br><i>%1</i>: %2")
                     .arg(QString::fromStdString(name).toHtmlEscaped(), QString::fromStdString(text).toHtmlEscaped());
    m_notes->setText(notes);
}

} // namespace attn::ui
