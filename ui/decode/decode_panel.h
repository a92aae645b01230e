// SPDX-License-Identifier: MIT
#pragma once
#include "decode/decode_controller.h"

#include <QWidget>

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace attn::ui {

class EngineController;
class TokenLink;

class AttentionStripView;
class BranchTreeView;
class DecodeLensView;
class HeatmapView;
class KvCacheView;
class ProbabilityChart;
class RedrawCoalescer;
class TimelineView;
class TokenChipsView;

/// Step-through decoding: prompt, Step / Run-Pause / Back / Reset (Right, Space, Left), sampling options, the
/// next-token chart (click forces a token), the new token's attention strip, the growing heatmap, the KV cache and
/// the timeline. Follows the newest step unless the timeline was scrubbed back.
class DecodePanel : public QWidget {
    Q_OBJECT
public:
    /// Token chips shown above the views: the newest ones (the heatmap shows every position).
    static constexpr int kChipsShown = 96;

    /// `engine`: the app's engine (null: one of its own, for a panel used alone).
    explicit DecodePanel(EngineController* engine = nullptr, QWidget* parent = nullptr);
    ~DecodePanel() override;

    void openModel(const QString& path);
    /// The open model cannot decode (or another is being opened): the panel empties and Step does nothing.
    void closeModel();
    void setPromptText(const QString& text);
    QString promptText() const;
    /// Shows step `index` of the timeline (scrubbing); the newest index follows new steps again.
    void showStep(int64_t index);
    SamplerOptions samplerOptions() const;
    void setSamplerOptions(const SamplerOptions& options);
    /// Applies pending redraws now (before a grab, in tests).
    void flushRedraw();
    /// The head the heatmap shows and the strip marks; the KV cache view shows its layer.
    void setHead(int64_t layer, int64_t head);

    DecodeController* controller() const { return m_controller; }
    int64_t currentIndex() const { return m_current; }
    /// Positions of the snapshot the heatmap shows (0 before the first).
    int64_t heatmapPositions() const { return m_heatmapPositions; }
    ProbabilityChart* chart() const { return m_chart; }
    AttentionStripView* strip() const { return m_strip; }
    /// The logit lens of the step shown.
    DecodeLensView* lensView() const { return m_lensView; }
    HeatmapView* heatmap() const { return m_heatmap; }
    TokenChipsView* tokenChips() const { return m_chips; }
    /// The tab's own linked hover and token range: its chips, heatmap and strip (positions of this timeline, not the
    /// main input's). The window's toolbar edits this range while the tab is shown.
    TokenLink* tokenLink() const { return m_link; }
    KvCacheView* kvCache() const { return m_kv; }
    TimelineView* timeline() const { return m_timeline; }
    BranchTreeView* branchTree() const { return m_branchTree; }
    QPushButton* stepButton() const { return m_stepButton; }
    QPushButton* runButton() const { return m_runButton; }
    QPushButton* backButton() const { return m_backButton; }
    QPushButton* resetButton() const { return m_resetButton; }
    QString lastError() const { return m_lastError; }

signals:
    void errorShown(const QString& message);
    /// The user picked a head in the tab (the attention strip); the window makes it the selection everywhere.
    void headSelected(qint64 layer, qint64 head);
    /// The views show a new state of the timeline (after the coalesced redraw).
    void redrawn();
    /// The heatmap shows `positions` tokens of the timeline (0: none); the toolbar's range counts them.
    void positionsShown(qint64 positions);
    /// Lens: the logit lens of the tokens up to the step shown (the window opens its Logit lens tab on them).
    void lensRequested(const std::vector<attn::TokenChip>& tokens);

private:
    QWidget* buildControls();
    void startPromptIfEmpty();
    void toggleRun();
    void applySampling();
    void redraw();
    void showError(const QString& message);
    void updateBranches();

    DecodeController* m_controller = nullptr;
    TokenLink* m_link = nullptr;
    QLineEdit* m_prompt = nullptr;
    QPushButton* m_promptButton = nullptr;
    QPushButton* m_stepButton = nullptr;
    QPushButton* m_runButton = nullptr;
    QPushButton* m_backButton = nullptr;
    QPushButton* m_resetButton = nullptr;
    QPushButton* m_lensButton = nullptr;
    QCheckBox* m_greedy = nullptr;
    QDoubleSpinBox* m_temperature = nullptr;
    QSpinBox* m_topK = nullptr;
    QDoubleSpinBox* m_topP = nullptr;
    QSpinBox* m_seed = nullptr;
    BranchTreeView* m_branchTree = nullptr; ///< the other timelines forcing left behind
    QLabel* m_status = nullptr;
    TokenChipsView* m_chips = nullptr;
    ProbabilityChart* m_chart = nullptr;
    AttentionStripView* m_strip = nullptr;
    DecodeLensView* m_lensView = nullptr;
    HeatmapView* m_heatmap = nullptr;
    KvCacheView* m_kv = nullptr;
    TimelineView* m_timeline = nullptr;
    RedrawCoalescer* m_redraw = nullptr;

    int64_t m_current = -1;
    bool m_follow = true;
    int64_t m_heatmapPositions = 0;
    int64_t m_requestedPositions = 0;
    QString m_lastError;
};

} // namespace attn::ui
