// SPDX-License-Identifier: MIT
#pragma once
// The Intervene tab: head ablations (zero, mean, scale) of the main input, the list of those active (each removable,
// Ctrl+Z removes the last), and the diff against the unmodified run: top next tokens and KL per position, and the
// selected head's attention difference, every head's change at once, and the greedy continuation with and without.
#include "intervention/ablation_result.h"
#include "intervention/attention_difference.h"
#include "model/model_summary.h"

#include <QWidget>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

class QAction;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QMenu;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace attn::ui {

class EngineController;
class HeatmapView;
class InterventionRunner;
class LinePlot;
class NotedView;
struct RunResult;

class InterventionPanel : public QWidget {
    Q_OBJECT
public:
    /// Computes on `engine`'s thread from the unmodified pass kept under `sessionKey` (the Logit lens tab uses the
    /// same, so one pass serves both).
    InterventionPanel(EngineController* engine, const std::string& sessionKey, QWidget* parent = nullptr);
    /// A model was opened (null: none, or one this tab cannot change): the list empties.
    void setModel(std::shared_ptr<const ModelSummary> summary);
    /// The main views' latest run: its tokens are diffed again under the active list.
    void setRun(std::shared_ptr<const RunResult> run);
    /// The selected head: the one the difference heatmap shows and the Ablate action changes.
    void setHead(int64_t layer, int64_t head);

    /// Adds `ablation` to the active list and re-runs.
    void addAblation(Ablation ablation);
    /// Ablates the selected head with the mode chosen in the tab.
    void ablateSelected();
    /// Removes entry `index` of the list and re-runs (the unmodified numbers once it is empty).
    void removeAt(int index);
    /// Removes the last entry (Ctrl+Z).
    void undo();
    void clear();
    const std::vector<Ablation>& ablations() const { return m_ablations; }
    /// (layer, head) -> how it is changed, for the head grid.
    std::map<std::pair<int64_t, int64_t>, QString> marks() const;
    /// The menu of head (layer, head): ablate it zero / mean / x0.5 / x2, or remove its ablations; the caller pops it.
    QMenu* headMenu(int64_t layer, int64_t head, QWidget* parent);

    AblationResultPtr result() const { return m_result; }
    InterventionRunner* runner() const { return m_runner; }
    QAction* undoAction() const { return m_undo; }
    QAction* ablateAction() const { return m_ablate; }
    QAction* clearAction() const { return m_clear; }
    QListWidget* list() const { return m_list; }
    QTableWidget* topTable() const { return m_table; }
    LinePlot* klPlot() const { return m_kl; }
    NotedView* views() const { return m_views; }
    HeatmapView* differenceView() const { return m_difference; }
    /// Every head's attention change at once (layers x heads, InterventionDiff::headChange).
    HeatmapView* headChangeView() const { return m_headChange; }
    /// The two continuations, as shown.
    QString continuationText() const;
    QString status() const;

signals:
    /// The active list changed (the grid's marks follow).
    void ablationsChanged();
    /// A diff reached the views.
    void resultShown();

protected:
    void showEvent(QShowEvent* event) override;

private:
    /// A diff and the difference of the head selected when it was asked for, both built on the engine thread.
    struct Answer {
        AblationResultPtr result;
        AttentionDifference difference;
        int64_t layer = 0, head = 0; ///< the head selected when it was asked for
    };
    void rerun();
    void showResult(Answer answer);
    /// Has the engine thread build the selected head's difference of the shown diff (when the tab is shown).
    void requestDifference();
    void showDifference(const AttentionDifference& difference);
    void updateList();
    void setStatus(const QString& text);

    EngineController* m_engine = nullptr;
    InterventionRunner* m_runner = nullptr;
    std::shared_ptr<const ModelSummary> m_summary;
    std::shared_ptr<const RunResult> m_run;
    std::vector<Ablation> m_ablations;
    AblationResultPtr m_result;
    int64_t m_layer = 0;
    int64_t m_head = 0;
    quint64 m_differenceRequest = 0; ///< the latest; older answers (another head or diff) are dropped
    bool m_differenceStale = false; ///< the head changed while the tab was hidden

    QComboBox* m_mode = nullptr;
    QDoubleSpinBox* m_factor = nullptr;
    QPushButton* m_ablateButton = nullptr;
    QPushButton* m_removeButton = nullptr;
    QPushButton* m_undoButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QProgressBar* m_progress = nullptr;
    QListWidget* m_list = nullptr;
    QTableWidget* m_table = nullptr;
    LinePlot* m_kl = nullptr;
    HeatmapView* m_difference = nullptr;
    HeatmapView* m_headChange = nullptr;
    QLabel* m_status = nullptr;
    NotedView* m_views = nullptr; ///< the lists, plots and maps, or why there are none
    QLabel* m_continuation = nullptr;
    QAction* m_ablate = nullptr;
    QAction* m_undo = nullptr;
    QAction* m_clear = nullptr;
};

} // namespace attn::ui
