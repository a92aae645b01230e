// SPDX-License-Identifier: MIT
#pragma once
#include "align/alignment_run.h"

#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSlider;
class QSpinBox;

namespace attn::ui {

class AlignmentController;
class AlignmentView;

/// The Alignment tab: source (and optional reference) text, beam width, optional gold file; a layer / head
/// aggregation, the hard-alignment rule, a step slider that reveals one decoded target word at a time, the list of
/// hypotheses with their scores, and precision / recall / AER against the gold sentence.
class AlignmentPanel : public QWidget {
    Q_OBJECT
public:
    explicit AlignmentPanel(QWidget* parent = nullptr);

    void openModel(const QString& path);
    void setSourceText(const QString& text);
    void setReferenceText(const QString& text);
    void setBeamWidth(int width);
    /// A Pharaoh or NAACL gold file and the (0-based) sentence of it that the source is; empty path: none.
    void setGold(const QString& path, int sentence);
    void align();
    void selectHypothesis(int index);
    void setAggregation(const AlignmentAggregation& aggregation);

    AlignmentController* controller() const { return m_controller; }
    AlignmentView* view() const { return m_view; }
    QListWidget* hypothesisList() const { return m_list; }
    QSlider* stepSlider() const { return m_step; }
    AlignmentRunPtr run() const { return m_run; }
    std::optional<AlignmentScore> score() const { return m_score; }
    QString scoreText() const;
    QString lastError() const { return m_lastError; }

signals:
    /// Whether the opened model is one this tab handles.
    void availableChanged(bool available);
    /// A run was shown, or the shown hypothesis / aggregation changed.
    void shown();

private:
    void showRun(AlignmentRunPtr run);
    void refresh();
    void fillAggregationChoices();
    AlignmentAggregation aggregation() const;
    Links hardLinks(const Tensor& matrix) const;
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
    QSlider* m_step;
    QListWidget* m_list;
    QLabel* m_scoreLabel;
    QLabel* m_message;
    QPushButton* m_alignButton;

    AlignmentRunPtr m_run;
    std::optional<GoldAlignment> m_gold;
    std::optional<AlignmentScore> m_score;
    QString m_lastError;
};

} // namespace attn::ui
