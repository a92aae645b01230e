// SPDX-License-Identifier: MIT
#include "workspace/workspace_controller.h"

#include "decode/decode_controller.h"
#include "decode/decode_panel.h"
#include "export/figure_recipe.h"
#include "main_window.h"
#include "plots/heatmap_view.h"
#include "plots/stats_view.h"
#include "widgets/head_lines_view.h"

#include <QSettings>
#include <QTabWidget>

namespace attn::ui {
namespace {

QString tabTitle(const QTabWidget& tabs, int index)
{
    return tabs.tabText(index).remove('&');
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
    w.colormap = m_window->heatmapView()->colormap();
    w.heatmap = m_window->heatmapView()->options();
    w.metric = m_window->statsView()->metric();
    DecodePanel* decode = m_window->decodePanel();
    w.decode.promptText = decode->promptText().toStdString();
    w.decode.sampler = decode->samplerOptions();
    for (const DecodeStepPtr& s : decode->controller()->steps()) {
        if (s->origin == TokenOrigin::Prompt) {
            w.decode.promptIds.push_back(s->token.id);
        } else {
            w.decode.generatedIds.push_back(s->token.id);
            w.decode.forced.push_back(s->origin == TokenOrigin::Forced);
        }
    }
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
    apply(w);
}

void WorkspaceController::apply(const Workspace& w)
{
    // The decode tab opens the model after the window does; its replay waits for that.
    DecodeController* decode = m_window->decodePanel()->controller();
    if (!w.decode.promptIds.empty())
        connect(decode, &DecodeController::opened, this, [this, d = w.decode] { replayDecode(d); },
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
    if (!w.headViewHeads.empty())
        m_window->linesView()->setHeads({ w.headViewHeads.begin(), w.headViewHeads.end() });
    m_window->statsView()->setMetric(w.metric);
    m_window->decodePanel()->setPromptText(QString::fromStdString(w.decode.promptText));
    QTabWidget* tabs = m_window->tabs();
    for (int i = 0; i < tabs->count(); ++i)
        if (tabTitle(*tabs, i).toStdString() == w.tab) tabs->setCurrentIndex(i);
}

void WorkspaceController::replayDecode(const WorkspaceDecode& d)
{
    DecodePanel* panel = m_window->decodePanel();
    DecodeController* decode = panel->controller();
    panel->setSamplerOptions(d.sampler);
    // Requests run in order on the decode thread: the prompt, then each token as it was made.
    decode->promptIds(d.promptIds);
    for (size_t i = 0; i < d.generatedIds.size(); ++i) {
        if (d.forced[i])
            decode->force(static_cast<int64_t>(d.promptIds.size() + i), d.generatedIds[i]);
        else
            decode->step();
    }
    const size_t total = d.promptIds.size() + d.generatedIds.size();
    auto* watch = new QObject(this); // one connection for this replay, gone once it has checked
    connect(decode, &DecodeController::timelineChanged, watch, [this, d, decode, total, watch] {
        if (decode->steps().size() < total) return;
        watch->deleteLater();
        checkReplay(d);
    });
    connect(decode, &DecodeController::failed, watch, [this, watch](const QString& message) {
        watch->deleteLater();
        emit failed(tr("workspace: decoding the saved tokens failed: %1").arg(message));
    });
}

void WorkspaceController::checkReplay(const WorkspaceDecode& d)
{
    const std::vector<DecodeStepPtr>& steps = m_window->decodePanel()->controller()->steps();
    for (size_t i = 0; i < d.generatedIds.size(); ++i) {
        const size_t at = d.promptIds.size() + i;
        if (steps[at]->token.id != d.generatedIds[i]) {
            emit failed(tr("workspace: decoding again gave token %1 at position %2 where the workspace has %3 "
                           "(another model file, or a sampler that differs)")
                            .arg(steps[at]->token.id)
                            .arg(at)
                            .arg(d.generatedIds[i]));
            return;
        }
    }
    emit restored();
}

} // namespace attn::ui
