// SPDX-License-Identifier: MIT
#include "atlas/atlas_panel.h"

#include "atlas/cluster_matrix_view.h"
#include "atlas/role_colors.h"
#include "atlas/role_grid_view.h"
#include "controller/attention_provider.h"
#include "intervention/intervention_runner.h"
#include "widgets/noted_view.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace attn::ui {

namespace {

// No probe by default: small models trained on one kind of text (the demo decoder) copy within it but not within
// random tokens, and the probe's queries would dilute their induction scores.
constexpr int kDefaultProbe = 0, kDefaultClusters = 6;

/// A titled view for the splitter.
QWidget* titled(const QString& title, QWidget* view)
{
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* label = new QLabel(title);
    label->setWordWrap(true);
    layout->addWidget(label);
    layout->addWidget(view, 1);
    return box;
}

QString definitionsText()
{
    QStringList lines { QString::fromStdString(atlasRoleRule()) };
    for (int s = 0; s < kAtlasScores; ++s)
        lines << QStringLiteral("%1: %2").arg(QString::fromStdString(atlasScoreNames()[static_cast<size_t>(s)]),
            QString::fromStdString(atlasScoreDefinitions()[static_cast<size_t>(s)]));
    return lines.join('\n');
}

} // namespace

AtlasPanel::AtlasPanel(EngineController* engine, const std::string& sessionKey, QWidget* parent)
    : QWidget(parent)
    , m_runner(new InterventionRunner(engine, sessionKey, this))
{
    qRegisterMetaType<attn::ui::HeadMapPtr>("attn::ui::HeadMapPtr");
    setObjectName("atlasPanel");
    m_mapButton = new QPushButton(tr("Map the input"));
    m_mapButton->setObjectName("mapHeads");
    m_mapButton->setToolTip(tr("Score and cluster every head on the main input and the induction probe"));
    m_probe = new QSpinBox;
    m_probe->setObjectName("atlasProbe");
    m_probe->setRange(0, 512);
    m_probe->setValue(kDefaultProbe);
    m_probe->setPrefix(tr("probe "));
    m_probe->setSpecialValueText(tr("no probe"));
    m_probe->setToolTip(tr("The standard induction probe: BOS, then this many random tokens twice (seed 0); it is "
                           "mapped with the main input"));
    m_clusters = new QSpinBox;
    m_clusters->setObjectName("atlasClusters");
    m_clusters->setRange(1, 64);
    m_clusters->setValue(kDefaultClusters);
    m_clusters->setPrefix(tr("clusters "));
    m_clusters->setToolTip(tr("How many groups the dendrogram of the heads' signatures is cut into"));
    auto* open = new QPushButton(tr("Open atlas…"));
    open->setObjectName("openAtlas");
    open->setToolTip(tr("Show an atlas written by attnscope-cli atlas or atlas-merge (its scores.json)"));
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setObjectName("cancelAtlas");
    m_cancel->setToolTip(tr("Stop the mapping in progress"));
    m_progress = new QProgressBar;
    m_runner->showProgressIn(m_progress, m_cancel);
    m_status = new QLabel;
    m_status->setObjectName("atlasStatus");
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_grid = new RoleGridView;
    m_matrix = new ClusterMatrixView;
    auto* legend = new QLabel(roleLegend());
    legend->setObjectName("atlasLegend");
    legend->setWordWrap(true);
    legend->setToolTip(definitionsText());
    auto* rule = new QLabel(QString::fromStdString(atlasRoleRule()));
    rule->setObjectName("atlasRule");
    rule->setWordWrap(true);
    rule->setToolTip(definitionsText());
    m_detail = new QLabel(tr("Hover a head for its scores."));
    m_detail->setObjectName("atlasDetail");
    m_detail->setWordWrap(true);
    m_detail->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_detail->setToolTip(definitionsText());
    m_detail->setMinimumHeight(2 * m_detail->fontMetrics().lineSpacing()); // a long score line must not move the views

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_mapButton);
    controls->addWidget(m_probe);
    controls->addWidget(m_clusters);
    controls->addWidget(open);
    controls->addStretch(1);
    controls->addWidget(m_progress);
    controls->addWidget(m_cancel);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(titled(tr("Layers x heads — colour: role, number: cluster"), m_grid));
    split->addWidget(titled(tr("Pattern correlation r (blue −1, white 0, red +1), heads in cluster order"), m_matrix));
    split->setChildrenCollapsible(false);
    split->setObjectName("exportFigure"); // what File > Export figure draws for this tab
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(controls);
    layout->addWidget(m_status);
    m_views = new NotedView(split);
    layout->addWidget(m_views, 1);
    layout->addWidget(legend);
    layout->addWidget(rule);
    layout->addWidget(m_detail);

    connect(m_mapButton, &QPushButton::clicked, this, &AtlasPanel::mapInput);
    connect(open, &QPushButton::clicked, this, &AtlasPanel::chooseAtlas);
    connect(m_probe, &QSpinBox::editingFinished, this, [this] {
        if (!m_fromFile && m_map) mapInput();
    });
    connect(m_clusters, &QSpinBox::valueChanged, this, &AtlasPanel::recluster);
    for (HeadMapView* view : std::initializer_list<HeadMapView*> { m_grid, m_matrix }) {
        connect(view, &HeadMapView::headHovered, this, &AtlasPanel::showHover);
        connect(view, &HeadMapView::headActivated, this, &AtlasPanel::headActivated);
    }
    connect(m_runner, &InterventionRunner::failed, this, [this](const QString& message) {
        m_status->setText(tr("Error: %1").arg(message));
        emit mapShown();
    });
    connect(m_runner, &InterventionRunner::cancelled, this, [this] { m_status->setText(tr("Cancelled.")); });
    setModel(nullptr);
}

void AtlasPanel::setModel(std::shared_ptr<const ModelSummary> summary)
{
    m_summary = summary && summary->config.kind == ModelKind::Decoder ? std::move(summary) : nullptr;
    m_tokens.clear();
    m_runner->forget();
    m_mapButton->setEnabled(m_summary != nullptr);
    m_probe->setEnabled(m_summary != nullptr);
    if (m_summary)
        m_probe->setMaximum(static_cast<int>(std::max<int64_t>(0, (m_summary->config.maxPositions - 1) / 2)));
    if (m_fromFile) return; // an opened atlas stays until another is mapped
    m_map.reset();
    m_grid->setMap(nullptr);
    m_matrix->setMap(nullptr);
    m_status->setText(m_summary ? tr("Run an input to map its heads, or open an atlas.") : QString());
    // Empty maps under a status line read as broken: without a decoder the note says why (`summary`, not moved from
    // then, names the model's kind) and what can be shown.
    if (m_summary)
        m_views->showContent();
    else
        m_views->showNote(needsDecoderNote(tr("Mapping heads"), summary.get()) + "\n"
            + tr("An atlas written by attnscope-cli atlas can be shown with Open atlas…"));
}

void AtlasPanel::setRun(std::shared_ptr<const RunResult> run)
{
    if (!m_summary) return;
    m_tokens.clear();
    for (const TokenChip& chip : run->source)
        m_tokens.push_back(chip.id);
    if (m_fromFile) return;
    m_map.reset();
    if (isVisible()) mapInput(); // otherwise when the tab is shown: no extra passes per run for a hidden tab
}

void AtlasPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (!m_map && !m_fromFile && !m_tokens.empty() && !m_runner->busy()) mapInput();
}

void AtlasPanel::mapInput()
{
    if (!m_summary || m_tokens.empty()) return;
    m_status->setText(tr("Mapping %1 heads…").arg(m_summary->config.numLayers * m_summary->config.numHeads));
    m_pendingFile.clear();
    const int64_t probe = m_probe->value(), clusters = m_clusters->value();
    m_runner->post<HeadMapPtr>(
        [key = m_runner->sessionKey(), path = m_summary->path, tokens = m_tokens, probe, clusters](
            EngineContext& context, const RerunHooks& hooks) {
            return mapHeads(context, key, path, tokens, probe, clusters, hooks);
        },
        [this](HeadMapPtr map) {
            m_fromFile = false;
            showMap(std::move(map));
        });
}

void AtlasPanel::openAtlas(const QString& path)
{
    m_status->setText(tr("Reading %1…").arg(path));
    m_pendingFile = path;
    const int64_t clusters = m_clusters->value();
    m_runner->post<HeadMapPtr>([path = path.toStdString(), clusters](
                                   EngineContext&, const RerunHooks&) { return readHeadMap(path, clusters); },
        [this](HeadMapPtr map) {
            m_fromFile = true;
            showMap(std::move(map));
        });
}

void AtlasPanel::chooseAtlas()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open head atlas"), QString(), tr("Atlas scores (scores.json);;All files (*)"));
    if (!path.isEmpty()) openAtlas(path);
}

void AtlasPanel::setClusters(int clusters)
{
    m_clusters->setValue(clusters);
}

void AtlasPanel::setProbeLength(int length)
{
    m_probe->setValue(length);
}

void AtlasPanel::recluster()
{
    if (m_runner->busy()) { // a newer request would cancel the one in flight: ask that one again, with this count
        if (m_pendingFile.isEmpty())
            mapInput();
        else
            openAtlas(m_pendingFile);
        return;
    }
    if (!m_map) return;
    const int64_t clusters = m_clusters->value();
    m_runner->post<HeadMapPtr>(
        [map = m_map, clusters](EngineContext&, const RerunHooks&) {
            return buildHeadMap(map->atlas, map->signatures, clusters, map->basis);
        },
        [this](HeadMapPtr map) { showMap(std::move(map)); });
}

void AtlasPanel::showMap(HeadMapPtr map)
{
    m_map = std::move(map);
    m_views->showContent();
    m_grid->setMap(m_map);
    m_matrix->setMap(m_map);
    std::vector<int> perRole(kAtlasRoles, 0);
    for (const AtlasRole role : m_map->roles)
        ++perRole[static_cast<size_t>(role)];
    QStringList counts;
    for (int r = 0; r < kAtlasRoles; ++r)
        if (perRole[static_cast<size_t>(r)] > 0)
            counts << QStringLiteral("%1 %2")
                          .arg(perRole[static_cast<size_t>(r)])
                          .arg(QString::fromStdString(atlasRoleName(static_cast<AtlasRole>(r))));
    m_status->setText(tr("%1 layers x %2 heads in %3 clusters, by %4. Roles: %5.")
                          .arg(m_map->atlas.layers())
                          .arg(m_map->atlas.heads())
                          .arg(m_map->clusters.count)
                          .arg(QString::fromStdString(m_map->basis), counts.join(", ")));
    emit mapShown();
}

QString AtlasPanel::describe(int64_t head) const
{
    const int64_t heads = m_map->atlas.heads();
    QStringList scores;
    for (int s = 0; s < kAtlasScores; ++s) {
        const float v = m_map->atlas.score(static_cast<AtlasScore>(s)).data()[head];
        scores << QStringLiteral("%1 %2").arg(QString::fromStdString(atlasScoreNames()[static_cast<size_t>(s)]),
            std::isnan(v) ? tr("n/a") : QString::number(v, 'f', 3));
    }
    return tr("L%1.H%2: %3, cluster %4 — %5")
        .arg(head / heads)
        .arg(head % heads)
        .arg(QString::fromStdString(atlasRoleName(m_map->roles[static_cast<size_t>(head)])))
        .arg(m_map->clusters.cluster[static_cast<size_t>(head)] + 1)
        .arg(scores.join(", "));
}

void AtlasPanel::showHover(qint64 head, qint64 other)
{
    m_grid->setHighlight(head);
    m_matrix->setHighlight(head);
    if (!m_map || head < 0) return;
    QString text = describe(head);
    if (other >= 0 && other != head) {
        const int64_t n = m_map->atlas.layers() * m_map->atlas.heads(), heads = m_map->atlas.heads();
        text = tr("r = %1 with L%2.H%3. ")
                   .arg(m_map->clusters.similarity.data()[head * n + other], 0, 'f', 2)
                   .arg(other / heads)
                   .arg(other % heads)
            + text;
    }
    m_detail->setText(text);
}

QString AtlasPanel::status() const
{
    return m_status->text();
}

QString AtlasPanel::detail() const
{
    return m_detail->text();
}

} // namespace attn::ui
