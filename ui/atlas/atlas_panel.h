// SPDX-License-Identifier: MIT
#pragma once
// The Head atlas tab: a map of every head of the open decoder, coloured by role (from the atlas scores, by a fixed
// rule) and clustered by how alike the heads' attention patterns are over the main input and an induction probe;
// or the same map of an atlas written by `attnscope-cli atlas` / `atlas-merge` (clustered by its scores).
#include "atlas/head_map.h"
#include "model/model_summary.h"
#include "model/token_chip.h"

#include <QWidget>

#include <memory>
#include <string>
#include <vector>

class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace attn::ui {

class ClusterMatrixView;
class EngineController;
class InterventionRunner;
class NotedView;
class RoleGridView;
struct RunResult;

class AtlasPanel : public QWidget {
    Q_OBJECT
public:
    /// Maps on `engine`'s thread from the unmodified pass kept under `sessionKey` (shared with the Intervene tab).
    AtlasPanel(EngineController* engine, const std::string& sessionKey, QWidget* parent = nullptr);

    /// A model was opened (null, or not a decoder: only an atlas file can be shown).
    void setModel(std::shared_ptr<const ModelSummary> summary);
    /// The main views' latest run: mapped when the tab is shown.
    void setRun(std::shared_ptr<const RunResult> run);
    /// Maps the main input (and the probe) now.
    void mapInput();
    /// Shows the atlas at `path` (its scores.json or its folder), clustered on the engine thread.
    void openAtlas(const QString& path);
    void setClusters(int clusters);
    /// Tokens of the induction probe's span (0: none).
    void setProbeLength(int length);

    HeadMapPtr map() const { return m_map; }
    RoleGridView* grid() const { return m_grid; }
    ClusterMatrixView* matrix() const { return m_matrix; }
    NotedView* views() const { return m_views; }
    InterventionRunner* runner() const { return m_runner; }
    QString status() const;
    /// What the hovered head (or pair) is.
    QString detail() const;

signals:
    /// A map (or the reason there is none) reached the views.
    void mapShown();
    void headActivated(qint64 layer, qint64 head);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void showMap(HeadMapPtr map);
    void recluster();
    void showHover(qint64 head, qint64 other);
    QString describe(int64_t head) const;
    void chooseAtlas();

    InterventionRunner* m_runner = nullptr;
    std::shared_ptr<const ModelSummary> m_summary;
    std::vector<int64_t> m_tokens;
    HeadMapPtr m_map;
    bool m_fromFile = false; ///< the map is an opened atlas: a new run does not replace it
    QString m_pendingFile; ///< the atlas being read; empty while the input is mapped
    QPushButton* m_mapButton = nullptr;
    QSpinBox* m_probe = nullptr;
    QSpinBox* m_clusters = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    NotedView* m_views = nullptr; ///< the two maps, or why there are none
    QLabel* m_detail = nullptr;
    RoleGridView* m_grid = nullptr;
    ClusterMatrixView* m_matrix = nullptr;
};

} // namespace attn::ui
