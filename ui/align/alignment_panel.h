// SPDX-License-Identifier: MIT
#pragma once
#include "align/alignment_controller.h"
#include "align/alignment_run.h"

#include <QWidget>

#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace attn::ui {

class AlignmentView;
class EngineController;

/// The Alignment tab: source (and optional reference) text, beam width, optional gold file, optional other direction
/// (a reverse model or its Pharaoh file); a layer / head aggregation, the hard-alignment rule, step-by-step greedy
/// decoding (Step, Run/Pause, Back, Reset: each step adds the new target token's cross-attention row), the list of
/// hypotheses with their scores, and precision / recall / AER against the gold sentence.
class AlignmentPanel : public QWidget {
    Q_OBJECT
public:
    /// `engine`: the app's engine (null: one of its own, for a panel used alone).
    explicit AlignmentPanel(EngineController* engine = nullptr, QWidget* parent = nullptr);

    void openModel(const QString& path);
    /// The open model is not a translation model: the panel empties and reports itself unavailable.
    void closeModel();
    void setSourceText(const QString& text);
    void setReferenceText(const QString& text);
    void setBeamWidth(int width);
    /// A Pharaoh or NAACL gold file and the (0-based) sentence of it that the source is; empty path: none.
    void setGold(const QString& path, int sentence);
    /// The other direction for symmetrization: a model folder translating target -> source, or a Pharaoh file as
    /// that model's `align` writes it (its i = our target word, its j = our source word; line = the sentence number
    /// of setGold). Empty: none, and intersection / grow-diag combine the two argmax directions of the shown matrix.
    void setReverse(const QString& path);
    void align();
    /// Step-by-step greedy decoding of the source text, on the engine thread.
    void step();
    void runDecoding();
    void pauseDecoding();
    void back();
    void resetDecoding();
    void selectHypothesis(int index);
    void setAggregation(const AlignmentAggregation& aggregation);

    AlignmentController* controller() const { return m_controller; }
    AlignmentView* view() const { return m_view; }
    QListWidget* hypothesisList() const { return m_list; }
    QPushButton* runButton() const { return m_runButton; }
    /// Where the other direction of intersection / grow-diag comes from, as shown.
    QString directionsText() const;
    AlignmentRunPtr run() const { return m_run; }
    std::optional<AlignmentScore> score() const { return m_score; }
    QString scoreText() const;
    /// Why the gold sentence seems not to be the shown pair (and which corpus line is), or empty.
    QString goldWarning() const { return m_goldWarning; }
    QString lastError() const { return m_lastError; }

signals:
    /// Whether the opened model is one this tab handles.
    void availableChanged(bool available);
    /// A run was shown, or the shown hypothesis / aggregation changed (once its matrix arrived from the engine
    /// thread), or the gold alignment, the rule or the other direction did.
    void shown();

private:
    void showRun(AlignmentRunPtr run);
    /// Shows the current hypothesis and aggregation: at once when its matrix is at hand, else once the engine has
    /// derived it.
    void refresh();
    /// The view, hard links and scores of m_matrix.
    void showMatrix();
    void fillAggregationChoices();
    AlignmentAggregation aggregation() const;
    Links hardLinks(const Tensor& matrix, const AlignmentHypothesis& hyp) const;
    /// The reverse direction's (source, target) links for `hyp`: its reverse model's, or the reverse file's.
    std::optional<Links> reverseLinks(const AlignmentHypothesis& hyp) const;
    void showDecoding(int steps, bool finished, bool running);
    void showError(const QString& message);

    AlignmentController* m_controller;
    AlignmentView* m_view;
    QLineEdit* m_source;
    QLineEdit* m_reference;
    QLineEdit* m_goldPath;
    QSpinBox* m_goldSentence;
    QSpinBox* m_beamWidth;
    QComboBox* m_layer;
    QComboBox* m_heads;
    QComboBox* m_rule;
    QLineEdit* m_reversePath;
    QPushButton* m_stepButton;
    QPushButton* m_runButton;
    QPushButton* m_backButton;
    QPushButton* m_resetButton;
    QLabel* m_stepLabel;
    QLabel* m_directions;
    QListWidget* m_list;
    QLabel* m_scoreLabel;
    QLabel* m_message;
    QPushButton* m_alignButton;

    AlignmentRunPtr m_run;
    /// The word matrix shown or asked for: of hypothesis `hypothesis` of `run` under `aggregation`; `values` null
    /// until the engine's answer arrives.
    struct ShownMatrix {
        AlignmentRunPtr run;
        int hypothesis = -1;
        AlignmentAggregation aggregation;
        WordMatrixPtr values;
    } m_matrix;
    std::optional<GoldAlignment> m_gold;
    std::vector<Links> m_reverseFile; ///< per sentence, the reverse file's links transposed to (source, target)
    std::optional<AlignmentScore> m_score;
    QString m_goldWarning;
    QString m_lastError;
};

} // namespace attn::ui
