// SPDX-License-Identifier: MIT
#pragma once
// The Compare tab: two attention patterns side by side with their difference and the Jensen-Shannon divergence of
// each query row. A and B are two heads of the main run, two layers' head means, or one selection on the main input
// (A) and on a second prompt (B, run on the engine thread).
#include "model/attention_snapshot.h"
#include "model/model_summary.h"

#include <QWidget>

#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace attn::ui {

class EngineController;
class HeatmapView;
class LinePlot;
class TokenLink;
struct Comparison;

class ComparePanel : public QWidget {
    Q_OBJECT
public:
    enum class Mode { Heads, Layers, Prompts, Models };
    /// What the third map shows.
    enum class Third { Difference, Ratio };

    explicit ComparePanel(EngineController* engine, QWidget* parent = nullptr);

    void setModel(std::shared_ptr<const ModelSummary> summary);
    /// The main views' current attention (side A, and side B but in Prompts mode).
    void setSnapshot(SnapshotPtr snapshot);
    void setMode(Mode mode);
    void setThird(Third third);
    /// Layer and head of side A / B (the head is ignored in Layers mode).
    void setSide(bool b, int64_t layer, int64_t head);
    /// Prompts mode: the second prompt, run with the next compare().
    void setPromptB(const QString& text);
    /// Models mode: the decoder side B runs the main input's token ids on, with the next compare().
    void setModelB(const QString& path);
    /// Shows the comparison (Prompts mode: after the second prompt's run arrives).
    void compare();

    HeatmapView* viewA() const { return m_views[0]; }
    HeatmapView* viewB() const { return m_views[1]; }
    /// B − A, or log2(B / A) (setThird).
    HeatmapView* differenceView() const { return m_views[2]; }
    /// The hovered cell of any of the three maps, banded in all of them.
    TokenLink* link() const { return m_link; }
    LinePlot* jsPlot() const { return m_js; }
    /// JS(A row, B row) in nats, per compared query row.
    const std::vector<double>& jsPerRow() const { return m_jsRows; }
    QString status() const;
    /// A comparison is being computed on the engine thread (compared() follows).
    bool comparing() const { return m_comparing; }

signals:
    /// A comparison (or the reason there is none) reached the views.
    void compared();

protected:
    void showEvent(QShowEvent* event) override;

private:
    /// compare() now when the tab is shown, else when it is next shown (a hidden tab reads no attention).
    void refresh();
    /// Computes the selection's comparison of the two runs on the engine thread, then shows it.
    void comparePair(SnapshotPtr runA, SnapshotPtr runB);
    void show(const Comparison& comparison);
    void updateControls();
    /// Zooming or panning one map moves the other two to the same rows and keys.
    void linkZoom();

    EngineController* m_engine = nullptr;
    std::shared_ptr<const ModelSummary> m_summary;
    SnapshotPtr m_snapshot;
    SnapshotPtr m_promptRun; ///< Prompts / Models mode: side B's (the second prompt's, model B's)
    quint64 m_request = 0;
    bool m_comparing = false;
    bool m_stale = false; ///< the selection or the input changed while the tab was hidden
    std::vector<double> m_jsRows;
    QComboBox* m_mode = nullptr;
    QComboBox* m_third = nullptr;
    TokenLink* m_link = nullptr;
    bool m_syncing = false; ///< a linked zoom is being applied: the views' own range changes are not passed on
    QSpinBox* m_layer[2] = {};
    QSpinBox* m_head[2] = {};
    QLineEdit* m_prompt = nullptr;
    QLineEdit* m_modelB = nullptr;
    QPushButton* m_browseB = nullptr;
    QPushButton* m_compare = nullptr;
    QLabel* m_status = nullptr;
    HeatmapView* m_views[3] = {};
    LinePlot* m_js = nullptr;
};

} // namespace attn::ui
