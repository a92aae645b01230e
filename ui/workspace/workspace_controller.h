// SPDX-License-Identifier: MIT
#pragma once
#include "workspace/workspace.h"

#include <QObject>
#include <QString>

namespace attn::ui {

class MainWindow;

/// Captures what the window shows as a Workspace and brings a saved one back: the model opens on the engine
/// thread, the inputs run, and the decode tab replays its tokens (the sampler's own choices are stepped again, so a
/// replay that gives other tokens, e.g. with another model file, is reported rather than hidden).
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
    void apply(const Workspace& workspace);
    void replayDecode(const WorkspaceDecode& decode);
    void checkReplay(const WorkspaceDecode& decode);

    MainWindow* m_window;
};

} // namespace attn::ui
