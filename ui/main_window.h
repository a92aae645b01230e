// SPDX-License-Identifier: MIT
#pragma once
#include "controller/engine_controller.h"

#include <QMainWindow>

#include <utility>
#include <vector>

class QLabel;
class QLineEdit;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QCheckBox;
class QComboBox;
class QSpinBox;
class QDockWidget;
class QTabWidget;
class QTimer;

namespace attn::ui {

class AlignmentPanel;
class CaptionPanel;
class RouterView;
class DecodePanel;
struct DemoModel;
class HeatmapView;
class MechanismsPanel;
class HeadGridView;
class HeadLinesView;
class AtlasPanel;
class ComparePanel;
class InterventionPanel;
class LogitLensPanel;
class ModelView;
class TokenLink;
class TokenRangeBar;
class StatsView;
class TokenChipsView;
class ChipsArea;
class VisionView;
class WorkspaceController;

/// The application window: menus, model info and input docks, and the attention views as tabs.
/// Model loading and runs go through the EngineController (engine thread); the window only shows results.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(ProviderFactory factory = openEngineProvider, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Opens a model folder or file asynchronously; errors are shown in the window, never thrown.
    void openModel(const QString& path);
    /// Opens a model, or a workspace (.attnscope, from a recent entry, a dropped file or the command line).
    void openPath(const QString& path);
    /// Opens a bundled demo model and runs its sample input.
    void openDemo(const DemoModel& demo);
    /// Replaces the input text (tokenizes and, when live, runs).
    void setInputText(const QString& text);
    /// Encoder-decoders: replaces the target (decoder) text, teacher-forced after the source.
    void setTargetText(const QString& text);
    QString inputText() const;
    QString targetText() const;
    /// Encoder-decoders: shows encoder self-, decoder self- or cross-attention (ignored when the run lacks it).
    void setAttentionKind(AttentionKind kind);
    AttentionKind attentionKind() const;
    RunPtr runResult() const { return m_run; }
    /// Selects the head shown by the heatmap and the head view (clamped to the model).
    void setCurrentHead(int64_t layer, int64_t head);

    QString lastError() const { return m_lastError; }
    SnapshotPtr snapshot() const { return m_snapshot; }
    SummaryPtr summary() const { return m_summary; }
    EngineController* controller() const { return m_controller; }
    HeatmapView* heatmapView() const { return m_heatmap; }
    HeadGridView* gridView() const { return m_grid; }
    HeadLinesView* linesView() const { return m_lines; }
    ModelView* modelView() const { return m_model; }
    TokenLink* tokenLink() const { return m_link; }
    TokenRangeBar* rangeBar() const { return m_rangeBar; }
    StatsView* statsView() const { return m_stats; }
    DecodePanel* decodePanel() const { return m_decode; }
    AlignmentPanel* alignmentPanel() const { return m_align; }
    VisionView* visionView() const { return m_vision; }
    CaptionPanel* captionPanel() const { return m_caption; }
    MechanismsPanel* mechanismsPanel() const { return m_mechanisms; }
    InterventionPanel* interventionPanel() const { return m_intervene; }
    LogitLensPanel* lensPanel() const { return m_lens; }
    ComparePanel* comparePanel() const { return m_compare; }
    AtlasPanel* atlasPanel() const { return m_atlas; }
    TokenChipsView* tokenChips() const { return m_chips; }
    TokenChipsView* targetChips() const { return m_targetChips; }
    QTabWidget* tabs() const { return m_tabs; }
    QString infoText() const;
    WorkspaceController* workspaces() const { return m_workspaces; }
    /// Offers the last saved or opened workspace in the status bar (a link), if its file still exists.
    void offerLastWorkspace();

signals:
    /// A new snapshot reached the views.
    void snapshotShown();
    void errorShown(const QString& message);

protected:
    /// The chips' areas grow with the window's height.
    void resizeEvent(QResizeEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildMenus();
    void buildDocks();
    void chooseModelFolder();
    void chooseModelFile();
    void chooseWorkspaceToOpen();
    void chooseWorkspaceToSave();

    void addRecent(const QString& path);
    void updateRecentMenu();
    void requestRun();
    void showRun(RunPtr run);
    void showSnapshot(SnapshotPtr snapshot);
    /// Shows the target row and the attention selector only for encoder-decoders.
    void setTwoSided(bool twoSided);
    /// The info panel names `description`; a notice ("no Vulkan device: running on the CPU") goes to the status bar.
    void showBackend(const QString& description, const QString& notice);
    void showError(const QString& message);
    void clearError();
    /// What the attention views say while they have nothing to show: that a model or an input is missing, or that
    /// the last one failed.
    void setPlaceholders(const QString& text);
    void stepHead(int dLayer, int dHead);
    /// Vision models get the vision tab; the text input and the text views are disabled for them.
    void setVisionMode(bool vision);
    /// A tab lists in its "collapsesDocks" property the docks it has no use for (the Decode, Vision and Alignment
    /// tabs have their own inputs): they hide while it is current and come back as the user left them.
    void fitDocksToTab();
    /// Image-to-text models have only the Caption tab.
    void setCaptionMode(bool caption);

    EngineController* m_controller = nullptr;
    WorkspaceController* m_workspaces = nullptr;
    QTabWidget* m_tabs = nullptr;
    HeatmapView* m_heatmap = nullptr;
    HeadGridView* m_grid = nullptr;
    HeadLinesView* m_lines = nullptr;
    ModelView* m_model = nullptr;
    TokenLink* m_link = nullptr;
    TokenRangeBar* m_rangeBar = nullptr;
    StatsView* m_stats = nullptr;
    DecodePanel* m_decode = nullptr;
    bool m_reopenDecode = false; ///< Decode was the current tab when the model now loading was opened
    AlignmentPanel* m_align = nullptr;
    RouterView* m_router = nullptr;
    VisionView* m_vision = nullptr;
    CaptionPanel* m_caption = nullptr;
    MechanismsPanel* m_mechanisms = nullptr;
    InterventionPanel* m_intervene = nullptr;
    LogitLensPanel* m_lens = nullptr;
    ComparePanel* m_compare = nullptr;
    AtlasPanel* m_atlas = nullptr;
    TokenChipsView* m_chips = nullptr;
    TokenChipsView* m_targetChips = nullptr;
    ChipsArea* m_chipsArea = nullptr;
    ChipsArea* m_targetChipsArea = nullptr; ///< shown with the target row
    QWidget* m_targetRow = nullptr;
    QLineEdit* m_target = nullptr;
    QComboBox* m_kindBox = nullptr;
    QPlainTextEdit* m_info = nullptr;
    QLineEdit* m_input = nullptr;
    QCheckBox* m_live = nullptr;
    QPushButton* m_runButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_errorBanner = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_inputNotice = nullptr; ///< what the engine did with an input past the model's positions
    QSpinBox* m_layerBox = nullptr;
    QSpinBox* m_headBox = nullptr;
    QMenu* m_recentMenu = nullptr;
    QTimer* m_inputTimer = nullptr;

    std::vector<std::pair<QDockWidget*, bool>> m_collapsedDocks; ///< hidden for the current tab, and if shown before
    QString m_lastError;
    RunPtr m_run;
    SnapshotPtr m_snapshot;
    SummaryPtr m_summary;
};

} // namespace attn::ui
