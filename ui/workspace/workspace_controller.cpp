// SPDX-License-Identifier: MIT
#include "workspace/workspace_controller.h"

#include "decode/decode_controller.h"
#include "decode/decode_panel.h"
#include "export/figure_recipe.h"
#include "intervention/intervention_panel.h"
#include "main_window.h"
#include "plots/heatmap_view.h"
#include "plots/stats_view.h"
#include "widgets/head_lines_view.h"
#include "widgets/token_link.h"

#include <QSettings>
#include <QTabWidget>

#include <algorithm>

namespace attn::ui {
namespace {

QString tabTitle(const QTabWidget& tabs, int index)
{
    return tabs.tabText(index).remove('&');
}

WorkspaceTimeline generatedPart(const std::vector<DecodeStepPtr>& steps)
{
    WorkspaceTimeline t;
    for (const DecodeStepPtr& s : steps)
        if (s->origin != TokenOrigin::Prompt) {
            t.generatedIds.push_back(s->token.id);
            t.forced.push_back(s->origin == TokenOrigin::Forced);
        }
    return t;
}

std::vector<size_t> forcedPositions(const WorkspaceTimeline& t)
{
    std::vector<size_t> at;
    for (size_t i = 0; i < t.forced.size(); ++i)
        if (t.forced[i]) at.push_back(i);
    return at;
}

/// The saved timelines in the order they are decoded again. Forcing keeps the timeline it leaves as a branch, so each
/// after the first must leave the one before at a forced token of its own: the original sampling (nothing forced)
/// first, then those whose first forced token comes later, and of those sharing it the one forced less first.
std::vector<WorkspaceTimeline> replayOrder(const WorkspaceDecode& d)
{
    std::vector<WorkspaceTimeline> order = d.branches;
    order.push_back(d.current);
    std::stable_sort(order.begin(), order.end(), [](const WorkspaceTimeline& a, const WorkspaceTimeline& b) {
        const std::vector<size_t> fa = forcedPositions(a), fb = forcedPositions(b);
        for (size_t k = 0;; ++k) {
            if (k == fb.size()) return false;
            if (k == fa.size()) return true;
            if (fa[k] != fb[k]) return fa[k] > fb[k];
        }
    });
    return order;
}

} // namespace

WorkspaceController::WorkspaceController(MainWindow* window)
    : QObject(window)
    , m_window(window)
{
}

Workspace WorkspaceController::capture() const
{
    Workspace w;
    if (const auto summary = m_window->summary()) w.model = summary->path;
    w.input = m_window->inputText().toStdString();
    w.target = m_window->targetText().toStdString();
    w.attention = attentionKindKey(m_window->attentionKind());
    w.tab = tabTitle(*m_window->tabs(), m_window->tabs()->currentIndex()).toStdString();
    w.layer = m_window->heatmapView()->layer();
    w.head = m_window->heatmapView()->head();
    const std::set<int64_t>& heads = m_window->linesView()->heads();
    w.headViewHeads.assign(heads.begin(), heads.end());
    w.range = m_window->tokenLink()->range();
    w.colormap = m_window->heatmapView()->colormap();
    w.heatmap = m_window->heatmapView()->options();
    w.metric = m_window->statsView()->metric();
    DecodePanel* decode = m_window->decodePanel();
    w.decode.promptText = decode->promptText().toStdString();
    w.decode.sampler = decode->samplerOptions();
    for (const Ablation& a : m_window->interventionPanel()->ablations())
        w.ablations.push_back(workspaceAblation(a));
    for (const DecodeStepPtr& s : decode->controller()->steps())
        if (s->origin == TokenOrigin::Prompt) w.decode.promptIds.push_back(s->token.id);
    w.decode.current = generatedPart(decode->controller()->steps());
    for (const std::vector<DecodeStepPtr>& b : decode->controller()->branches())
        w.decode.branches.push_back(generatedPart(b));
    return w;
}

void WorkspaceController::save(const QString& path) const
{
    const Workspace w = capture();
    if (w.model.empty()) throw Error("save workspace: open a model first");
    writeWorkspaceFile(path.toStdString(), w);
    QSettings().setValue("workspace/last", path);
}

void WorkspaceController::open(const QString& path)
{
    const Workspace w = readWorkspaceFile(path.toStdString());
    QSettings().setValue("workspace/last", path);
    apply(w, path);
}

void WorkspaceController::apply(const Workspace& w, const QString& path)
{
    // A snapshot of another shape starts the range over, so it is set once the input's run is shown (and before
    // restored() is emitted below).
    connect(
        m_window, &MainWindow::snapshotShown, this, [this, range = w.range] { m_window->tokenLink()->setRange(range); },
        Qt::SingleShotConnection);
    // The Intervene tab ablates the input's run, so its list comes back once that run is shown.
    if (!w.ablations.empty())
        connect(
            m_window, &MainWindow::snapshotShown, this,
            [this, ablations = w.ablations, path] { applyAblations(ablations, path); }, Qt::SingleShotConnection);
    // The decode tab opens the model after the window does; its replay waits for that.
    DecodeController* decode = m_window->decodePanel()->controller();
    if (!w.decode.promptIds.empty())
        connect(
            decode, &DecodeController::opened, this, [this, d = w.decode] { replayDecode(d); },
            Qt::SingleShotConnection);
    else
        connect(m_window, &MainWindow::snapshotShown, this, &WorkspaceController::restored, Qt::SingleShotConnection);
    m_window->openModel(QString::fromStdString(w.model));
    m_window->setInputText(QString::fromStdString(w.input));
    m_window->setTargetText(QString::fromStdString(w.target));
    m_window->setAttentionKind(attentionKindFromKey(w.attention));
    m_window->setCurrentHead(w.layer, w.head);
    m_window->heatmapView()->setColormap(w.colormap);
    m_window->heatmapView()->setOptions(w.heatmap);
    if (!w.headViewHeads.empty()) m_window->linesView()->setHeads({ w.headViewHeads.begin(), w.headViewHeads.end() });
    m_window->statsView()->setMetric(w.metric);
    m_window->decodePanel()->setPromptText(QString::fromStdString(w.decode.promptText));
    QTabWidget* tabs = m_window->tabs();
    for (int i = 0; i < tabs->count(); ++i)
        if (tabTitle(*tabs, i).toStdString() == w.tab) tabs->setCurrentIndex(i);
}

void WorkspaceController::applyAblations(const std::vector<WorkspaceAblation>& ablations, const QString& path)
{
    InterventionPanel* panel = m_window->interventionPanel();
    const auto summary = m_window->summary();
    if (!summary || summary->config.kind != ModelKind::Decoder)
        return emit failed(tr("workspace %1: its ablations need a decoder model, and this one is not").arg(path));
    std::vector<Ablation> parsed;
    try {
        for (const WorkspaceAblation& a : ablations) {
            Ablation out;
            out.heads = parseHeads(a.heads, summary->config);
            parseAblationMode(a.mode, out);
            parsed.push_back(std::move(out));
        }
    } catch (const Error& e) {
        return emit failed(tr("workspace %1: %2").arg(path, QString::fromStdString(e.what())));
    }
    for (Ablation& a : parsed)
        panel->addAblation(std::move(a));
}

void WorkspaceController::replayDecode(const WorkspaceDecode& d)
{
    DecodePanel* panel = m_window->decodePanel();
    panel->setSamplerOptions(d.sampler);
    panel->controller()->promptIds(d.promptIds);
    replayTimelines(d, replayOrder(d), 0);
}

void WorkspaceController::replayTimelines(
    const WorkspaceDecode& d, const std::vector<WorkspaceTimeline>& order, size_t index)
{
    DecodeController* decode = m_window->decodePanel()->controller();
    if (index == order.size()) return showCurrent(d);
    const WorkspaceTimeline& t = order[index];
    const size_t prompt = d.promptIds.size();
    size_t from = 0; // the first generated position of `t` to decode
    if (index > 0) {
        const WorkspaceTimeline shown = generatedPart(decode->steps());
        while (from < t.generatedIds.size() && from < shown.generatedIds.size()
            && t.generatedIds[from] == shown.generatedIds[from])
            ++from;
        if (from == t.generatedIds.size() && from == shown.generatedIds.size())
            return replayTimelines(d, order, index + 1); // the same timeline twice
        if (from == t.generatedIds.size() || !t.forced[from])
            return emit failed(tr("workspace: a decode branch leaves the others at position %1 with a sampled token, "
                                  "so forcing cannot rebuild it")
                                   .arg(prompt + from));
    }
    // Requests run in order on the engine thread: each token as it was made.
    for (size_t i = from; i < t.generatedIds.size(); ++i) {
        if (t.forced[i])
            decode->force(static_cast<int64_t>(prompt + i), t.generatedIds[i]);
        else
            decode->step();
    }
    whenShown(d, t, [this, d, order, index] { replayTimelines(d, order, index + 1); });
}

void WorkspaceController::showCurrent(const WorkspaceDecode& d)
{
    DecodeController* decode = m_window->decodePanel()->controller();
    if (generatedPart(decode->steps()).generatedIds == d.current.generatedIds) return emit restored();
    const auto& branches = decode->branches();
    for (size_t i = 0; i < branches.size(); ++i)
        if (generatedPart(branches[i]).generatedIds == d.current.generatedIds) {
            decode->switchToBranch(i);
            return whenShown(d, d.current, [this] { emit restored(); });
        }
    emit failed(tr("workspace: the saved decode timeline is not among those decoded again"));
}

void WorkspaceController::whenShown(
    const WorkspaceDecode& d, const WorkspaceTimeline& wanted, const std::function<void()>& then)
{
    DecodeController* decode = m_window->decodePanel()->controller();
    const size_t total = d.promptIds.size() + wanted.generatedIds.size();
    auto* watch = new QObject(this); // one connection for this wait, gone once it has checked
    connect(decode, &DecodeController::timelineChanged, watch,
        [this, decode, total, wanted, prompt = d.promptIds.size(), then, watch] {
            if (decode->steps().size() != total) return;
            watch->deleteLater();
            const std::vector<DecodeStepPtr>& steps = decode->steps();
            for (size_t i = 0; i < wanted.generatedIds.size(); ++i) {
                const int64_t id = steps[prompt + i]->token.id;
                if (id != wanted.generatedIds[i])
                    return emit failed(
                        tr("workspace: decoding again gave token %1 at position %2 where the workspace has "
                           "%3 (another model file, or a sampler that differs)")
                            .arg(id)
                            .arg(prompt + i)
                            .arg(wanted.generatedIds[i]));
            }
            then();
        });
    connect(decode, &DecodeController::failed, watch, [this, watch](const QString& message) {
        watch->deleteLater();
        emit failed(tr("workspace: decoding the saved tokens failed: %1").arg(message));
    });
}

} // namespace attn::ui
