// SPDX-License-Identifier: MIT
#include "intervention/decode_lens_view.h"

#include "intervention/ablation_labels.h"
#include "intervention/intervention_runner.h"
#include "intervention/lens_table.h"

#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace attn::ui {

namespace {
/// Its own kept pass: the timeline's tokens would otherwise replace the main input's, which the other tabs share.
const std::string kSessionKey = "decode/lens";
} // namespace

DecodeLensView::DecodeLensView(EngineController* engine, QWidget* parent)
    : QWidget(parent)
    , m_runner(new InterventionRunner(engine, kSessionKey, this))
{
    qRegisterMetaType<attn::ui::LensResultPtr>("attn::ui::LensResultPtr");
    setObjectName("decodeLens");
    m_title = new QLabel(tr("Logit lens"));
    m_title->setWordWrap(true);
    m_table = newLensTable();
    m_table->setObjectName("decodeLensTable");
    nameLensTableRows(m_table, true); // its header reads the same before the first readout
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_title);
    layout->addWidget(m_table, 1);
    connect(m_runner, &InterventionRunner::failed, this, [this](const QString& message) {
        m_title->setText(tr("Logit lens: %1").arg(message));
        emit resultShown();
    });
}

void DecodeLensView::setModelPath(const QString& path)
{
    m_path = path;
    m_tokens.clear();
    m_result.reset();
    m_runner->forget();
    m_table->setRowCount(0);
    m_title->setText(tr("Logit lens"));
}

void DecodeLensView::setTokens(std::vector<TokenChip> tokens)
{
    std::vector<int64_t> ids;
    for (const TokenChip& chip : tokens)
        ids.push_back(chip.id);
    if (ids == m_tokens && (m_result || m_runner->busy())) return; // a redraw of the same step
    m_tokens = std::move(ids);
    m_stale = !isVisible();
    if (!m_stale) compute();
}

void DecodeLensView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_stale) compute();
}

void DecodeLensView::compute()
{
    m_stale = false;
    if (m_path.isEmpty() || m_tokens.empty()) return;
    m_runner->request<LensResultPtr>(m_path, m_tokens, &computeLens, [this](LensResultPtr r) { show(std::move(r)); });
}

void DecodeLensView::show(LensResultPtr result)
{
    m_result = std::move(result);
    const LogitLens& lens = m_result->lens;
    const int64_t at = lens.chosenProbability.dim(1) - 1;
    fillLensTable(m_table, *m_result, at, true);
    m_title->setText(tr("Logit lens after \"%1\": the model predicts \"%2\"")
                         .arg(shownToken(m_result->text, m_result->tokens.back()),
                             shownToken(m_result->text, lens.chosen[static_cast<size_t>(at)])));
    emit resultShown();
}

} // namespace attn::ui
