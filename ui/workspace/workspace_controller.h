// SPDX-License-Identifier: MIT
#pragma once
#include "workspace/workspace.h"

#include <QObject>
#include <QString>

#include <functional>
#include <vector>

namespace attn::ui {

class MainWindow;

/// Captures what the window shows as a Workspace and brings a saved one back: the model opens on the engine
/// thread, the inputs run, and the decode tab replays its tokens and its branches (the sampler's own choices are
/// stepped again, so a replay that gives other tokens, e.g. with another model file, is reported rather than hidden).
class WorkspaceController : public QObject {
    Q_OBJECT
public:
    explicit WorkspaceController(MainWindow* window);

    Workspace capture() const;
    void save(const QString& path) const; ///< throws Error
    void open(const QString& path); ///< throws Error for an unreadable workspace; later problems arrive as failed()

signals:
    void failed(const QString& message);
    /// The workspace is shown, including its decoded tokens (emitted once per open).
    void restored();

private:
    void apply(const Workspace& workspace, const QString& path);
    /// Puts the saved ablations back on the Intervene tab's list (heads checked against the open model).
    void applyAblations(const std::vector<WorkspaceAblation>& ablations, const QString& path);
    /// Decodes the saved prompt and every saved timeline again, the branches and the current one, then shows the
    /// current one.
    void replayDecode(const WorkspaceDecode& decode);
    /// Decodes order[index] (from where it leaves the timeline shown), then the ones after it.
    void replayTimelines(const WorkspaceDecode& decode, const std::vector<WorkspaceTimeline>& order, size_t index);
    /// Once every timeline is decoded: goes over to the one that was current when saved.
    void showCurrent(const WorkspaceDecode& decode);
    /// Runs `then` once the decode tab shows `wanted` after the prompt; a token that differs is reported instead.
    void whenShown(const WorkspaceDecode& decode, const WorkspaceTimeline& wanted, const std::function<void()>& then);

    MainWindow* m_window;
};

} // namespace attn::ui
