// SPDX-License-Identifier: MIT
#include "intervention/decode_lens_view.h"

#include "intervention/ablation_labels.h"
#include "intervention/intervention_runner.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace attn::ui {

namespace {
/// Its own kept pass: the timeline's tokens would otherwise replace the main input's, which the other tabs share.
const std::string kSessionKey = "decode/lens";
constexpr size_t kShownTop = 3;
} // namespace

DecodeLensView::DecodeLensView(EngineController* engine, QWidget* parent)
    : QWidget(parent)
    , m_runner(new InterventionRunner(engine, kSessionKey, this))
{
    qRegisterMetaType<attn::ui::LensResultPtr>("attn::ui::LensResultPtr");
    setObjectName("decodeLens");
    m_title = new QLabel(tr("Logit lens"));
    m_title->setWordWrap(true);
    m_table = new QTableWidget(0, 3);
    m_table->setObjectName("decodeLensTable");
    m_table->setHorizontalHeaderLabels({ tr("after"), tr("p(chosen)"), tr("top next") });
    m_table->setToolTip(tr("What the residual stream predicts after each layer (the model's final norm and "
                           "unembedding) at the step shown; p(chosen) is the probability of the token the model "
                           "finally predicts there"));
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
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
    const int64_t n = lens.chosenProbability.dim(1), layers = lens.chosenProbability.dim(0) - 1, at = n - 1;
    m_table->setRowCount(static_cast<int>(layers + 1));
    for (int64_t l = 0; l <= layers; ++l) {
        QStringList top;
        const auto& tokens = lens.top[static_cast<size_t>(l)][static_cast<size_t>(at)];
        for (size_t r = 0; r < std::min(kShownTop, tokens.size()); ++r)
            top << QStringLiteral("%1 %2")
                       .arg(shownToken(m_result->text, tokens[r].id))
                       .arg(tokens[r].probability, 0, 'f', 2);
        const int row = static_cast<int>(l);
        m_table->setItem(row, 0, new QTableWidgetItem(l == 0 ? tr("embed") : tr("L%1").arg(l - 1)));
        m_table->setItem(
            row, 1, new QTableWidgetItem(QString::number(lens.chosenProbability.data()[l * n + at], 'f', 3)));
        m_table->setItem(row, 2, new QTableWidgetItem(top.join(", ")));
    }
    m_title->setText(tr("Logit lens after \"%1\": the model predicts \"%2\"")
                         .arg(shownToken(m_result->text, m_result->tokens.back()),
                             shownToken(m_result->text, lens.chosen[static_cast<size_t>(at)])));
    emit resultShown();
}

} // namespace attn::ui
