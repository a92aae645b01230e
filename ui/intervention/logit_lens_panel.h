// SPDX-License-Identifier: MIT
#pragma once
// The Logit lens tab: for one position of the main input, what the residual stream predicts after each layer (the
// model's own final norm and unembedding), the top tokens per layer and the probability of the finally chosen token
// across layers.
#include "intervention/lens_result.h"
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
class QTableWidget;

namespace attn::ui {

class EngineController;
class InterventionRunner;
class LinePlot;
class NotedView;
struct RunResult;

class LogitLensPanel : public QWidget {
    Q_OBJECT
public:
    /// Computes on `engine`'s thread from the unmodified pass kept under `sessionKey` (shared with the Intervene tab).
    LogitLensPanel(EngineController* engine, const std::string& sessionKey, QWidget* parent = nullptr);

    /// A model was opened (null, or not a decoder: nothing to show).
    void setModel(std::shared_ptr<const ModelSummary> summary);
    /// The main views' latest run; computed when the tab is shown.
    void setRun(std::shared_ptr<const RunResult> run);
    /// Any tokens of the open model (the Decode tab's timeline up to a step); `origin` names them in the status.
    void setTokens(std::vector<TokenChip> tokens, const QString& origin);
    const std::vector<TokenChip>& tokens() const { return m_tokens; }
    /// The position whose predictions the table and the plot show (clamped to the input).
    void setPosition(int position);
    int position() const;

    LensResultPtr result() const { return m_result; }
    InterventionRunner* runner() const { return m_runner; }
    QTableWidget* table() const { return m_table; }
    LinePlot* chosenPlot() const { return m_plot; }
    NotedView* views() const { return m_views; }
    QString status() const;

signals:
    void resultShown();

protected:
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void compute();
    void showPosition();
    /// The plot's x ticks name the readouts as the table's rows do.
    void nameReadouts();
    /// The table as tall as its rows, no taller: the plot below takes the rest.
    void fitTableHeight();

    InterventionRunner* m_runner = nullptr;
    std::shared_ptr<const ModelSummary> m_summary;
    std::vector<TokenChip> m_tokens;
    QString m_origin; ///< "the main input", "the Decode tab"
    LensResultPtr m_result;
    QSpinBox* m_position = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    QTableWidget* m_table = nullptr;
    LinePlot* m_plot = nullptr;
    NotedView* m_views = nullptr; ///< the table and the plot, or why there are none
};

} // namespace attn::ui
