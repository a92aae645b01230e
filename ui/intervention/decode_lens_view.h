// SPDX-License-Identifier: MIT
#pragma once
// The logit lens inside the Decode tab: for the step shown, what each layer's residual stream predicts next (top
// tokens) and the probability the model finally gives its choice, on the engine thread from a pass of its own (the
// timeline's tokens, not the main input's).
#include "intervention/lens_result.h"
#include "model/token_chip.h"

#include <QWidget>

#include <string>
#include <vector>

class QLabel;
class QTableWidget;

namespace attn::ui {

class EngineController;
class InterventionRunner;

class DecodeLensView : public QWidget {
    Q_OBJECT
public:
    explicit DecodeLensView(EngineController* engine, QWidget* parent = nullptr);

    /// The decoder being stepped (empty: none; the view empties).
    void setModelPath(const QString& path);
    /// The timeline's tokens up to the step shown: read out after the last of them (when the view is visible).
    void setTokens(std::vector<TokenChip> tokens);

    LensResultPtr result() const { return m_result; }
    QTableWidget* table() const { return m_table; }
    InterventionRunner* runner() const { return m_runner; }

signals:
    void resultShown();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void compute();
    void show(LensResultPtr result);

    InterventionRunner* m_runner = nullptr;
    QString m_path;
    std::vector<int64_t> m_tokens;
    bool m_stale = false; ///< tokens arrived while hidden
    LensResultPtr m_result;
    QLabel* m_title = nullptr;
    QTableWidget* m_table = nullptr;
};

} // namespace attn::ui
