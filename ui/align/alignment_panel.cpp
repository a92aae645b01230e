// SPDX-License-Identifier: MIT
#include "align/alignment_panel.h"

#include "align/alignment_controller.h"
#include "align/alignment_view.h"
#include "core/error.h"
#include "export/figure_export.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

namespace attn::ui {
namespace {
enum class Rule { PerTarget, PerSource, Intersection, GrowDiag, GrowDiagFinal };
} // namespace

AlignmentPanel::AlignmentPanel(QWidget* parent)
    : QWidget(parent)
    , m_controller(new AlignmentController(this))
    , m_view(new AlignmentView)
    , m_source(new QLineEdit)
    , m_reference(new QLineEdit)
    , m_goldPath(new QLineEdit)
    , m_goldSentence(new QSpinBox)
    , m_beamWidth(new QSpinBox)
    , m_layer(new QComboBox)
    , m_heads(new QComboBox)
    , m_rule(new QComboBox)
    , m_step(new QSlider(Qt::Horizontal))
    , m_list(new QListWidget)
    , m_scoreLabel(new QLabel)
    , m_message(new QLabel)
    , m_alignButton(new QPushButton(tr("&Align")))
{
    m_view->setObjectName(kFigureObjectName); // Export > figure draws the matrix, not the inputs
    m_source->setObjectName("alignSource");
    m_source->setPlaceholderText(tr("Source sentence"));
    m_reference->setObjectName("alignReference");
    m_reference->setPlaceholderText(tr("Reference translation (optional: teacher forcing)"));
    m_goldPath->setObjectName("alignGold");
    m_goldPath->setPlaceholderText(tr("Gold alignment file (optional: Pharaoh i-j / i?j or NAACL)"));
    m_goldSentence->setPrefix(tr("sentence "));
    m_goldSentence->setRange(0, 1000000);
    m_beamWidth->setObjectName("beamWidth");
    m_beamWidth->setPrefix(tr("beams "));
    m_beamWidth->setRange(0, 16);
    m_beamWidth->setValue(3);
    m_beamWidth->setToolTip(tr("Beam search width (0: only the reference)"));
    m_rule->addItems({ tr("argmax per target"), tr("argmax per source"), tr("intersection"), tr("grow-diag"),
        tr("grow-diag-final") });
    m_rule->setToolTip(tr("Hard alignment: per-target and per-source argmax of the shown matrix are the two "
                          "directions that intersection and grow-diag combine"));
    m_step->setObjectName("alignStep");
    m_step->setRange(0, 0); // at its end: a new run shows every row
    m_step->setToolTip(tr("Decoding step: the cross-attention row of each new target word"));
    m_list->setObjectName("hypotheses");
    m_list->setWordWrap(true);
    for (QComboBox* box : { m_layer, m_heads, m_rule })
        box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_scoreLabel->setObjectName("alignScore");
    m_scoreLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setWordWrap(true);
    m_message->setStyleSheet("QLabel { color: #8a1111; }");

    auto* browse = new QPushButton(tr("Gold…"));
    auto* inputs = new QFormLayout;
    auto* sourceRow = new QHBoxLayout;
    sourceRow->addWidget(m_source, 1);
    sourceRow->addWidget(m_beamWidth);
    sourceRow->addWidget(m_alignButton);
    inputs->addRow(tr("Source"), sourceRow);
    inputs->addRow(tr("Reference"), m_reference);
    auto* goldRow = new QHBoxLayout;
    goldRow->addWidget(m_goldPath, 1);
    goldRow->addWidget(m_goldSentence);
    goldRow->addWidget(browse);
    inputs->addRow(tr("Gold"), goldRow);
    auto* viewRow = new QHBoxLayout;
    viewRow->addWidget(m_layer);
    viewRow->addWidget(m_heads);
    viewRow->addWidget(m_rule);
    viewRow->addWidget(new QLabel(tr("step")));
    viewRow->addWidget(m_step, 1);
    inputs->addRow(tr("View"), viewRow);

    auto* side = new QWidget;
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    sideLayout->addWidget(new QLabel(tr("Hypotheses (score)")));
    sideLayout->addWidget(m_list, 1);
    sideLayout->addWidget(m_scoreLabel);
    auto* split = new QSplitter;
    split->addWidget(m_view);
    split->addWidget(side);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    split->setSizes({ 900, 360 });

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(inputs);
    layout->addWidget(m_message);
    layout->addWidget(split, 1);
    m_message->hide();

    connect(m_alignButton, &QPushButton::clicked, this, &AlignmentPanel::align);
    connect(m_source, &QLineEdit::returnPressed, this, &AlignmentPanel::align);
    connect(m_reference, &QLineEdit::returnPressed, this, &AlignmentPanel::align);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Gold alignment"));
        if (!path.isEmpty()) setGold(path, m_goldSentence->value());
    });
    connect(m_goldPath, &QLineEdit::editingFinished, this,
        [this] { setGold(m_goldPath->text(), m_goldSentence->value()); });
    connect(m_goldSentence, &QSpinBox::valueChanged, this, [this](int s) { setGold(m_goldPath->text(), s); });
    for (QComboBox* box : { m_layer, m_heads, m_rule })
        connect(box, &QComboBox::currentIndexChanged, this, &AlignmentPanel::refresh);
    connect(m_list, &QListWidget::currentRowChanged, this, &AlignmentPanel::refresh);
    connect(m_step, &QSlider::valueChanged, m_view, &AlignmentView::setVisibleRows);
    connect(m_controller, &AlignmentController::available, this, &AlignmentPanel::availableChanged);
    connect(m_controller, &AlignmentController::ready, this, &AlignmentPanel::showRun);
    connect(m_controller, &AlignmentController::failed, this, &AlignmentPanel::showError);
}

void AlignmentPanel::openModel(const QString& path)
{
    m_run.reset();
    m_list->clear();
    m_controller->open(path);
}

void AlignmentPanel::setSourceText(const QString& text)
{
    m_source->setText(text);
}

void AlignmentPanel::setReferenceText(const QString& text)
{
    m_reference->setText(text);
}

void AlignmentPanel::setBeamWidth(int width)
{
    m_beamWidth->setValue(width);
}

void AlignmentPanel::setGold(const QString& path, int sentence)
{
    {
        const QSignalBlocker block(m_goldSentence);
        m_goldPath->setText(path);
        m_goldSentence->setValue(sentence);
    }
    m_gold.reset();
    if (!path.isEmpty()) {
        try {
            const std::vector<GoldAlignment> gold = readGoldAlignments(path.toStdString());
            if (sentence < 0 || sentence >= static_cast<int>(gold.size()))
                throw Error(path.toStdString(),
                    "has " + std::to_string(gold.size()) + " sentences, no sentence " + std::to_string(sentence));
            m_gold = gold[static_cast<size_t>(sentence)];
        } catch (const std::exception& e) {
            showError(QString::fromStdString(e.what()));
        }
    }
    refresh();
}

void AlignmentPanel::align()
{
    m_message->hide();
    m_lastError.clear();
    m_controller->align(m_source->text(), m_reference->text(), m_beamWidth->value());
}

void AlignmentPanel::selectHypothesis(int index)
{
    m_list->setCurrentRow(index);
}

void AlignmentPanel::setAggregation(const AlignmentAggregation& aggregation)
{
    const QSignalBlocker blockLayer(m_layer), blockHeads(m_heads);
    m_layer->setCurrentIndex(static_cast<int>(aggregation.layer + 1));
    m_heads->setCurrentIndex(aggregation.heads == AlignmentAggregation::Heads::Mean ? 0
            : aggregation.heads == AlignmentAggregation::Heads::Max                 ? 1
                                                                    : static_cast<int>(aggregation.head + 2));
    refresh();
}

AlignmentAggregation AlignmentPanel::aggregation() const
{
    AlignmentAggregation a;
    a.layer = std::max(0, m_layer->currentIndex()) - 1;
    const int h = std::max(0, m_heads->currentIndex());
    a.heads = h == 0 ? AlignmentAggregation::Heads::Mean
        : h == 1     ? AlignmentAggregation::Heads::Max
                     : AlignmentAggregation::Heads::One;
    a.head = std::max(0, h - 2);
    return a;
}

void AlignmentPanel::fillAggregationChoices()
{
    const QSignalBlocker blockLayer(m_layer), blockHeads(m_heads);
    m_layer->clear();
    m_heads->clear();
    m_layer->addItem(tr("average of layers"));
    for (int64_t l = 0; l < m_run->layers(); ++l)
        m_layer->addItem(tr("layer %1").arg(l));
    m_heads->addItems({ tr("mean over heads"), tr("max over heads") });
    for (int64_t h = 0; h < m_run->heads(); ++h)
        m_heads->addItem(tr("head %1").arg(h));
    // Default to the last layer, whose cross-attention aligns best in most translation models.
    m_layer->setCurrentIndex(static_cast<int>(m_run->layers()));
}

void AlignmentPanel::showRun(AlignmentRunPtr run)
{
    m_run = std::move(run);
    fillAggregationChoices();
    {
        const QSignalBlocker block(m_step);
        m_step->setRange(0, 0);
    }
    const QSignalBlocker block(m_list);
    m_list->clear();
    for (const AlignmentHypothesis& h : m_run->hypotheses) {
        const QString score
            = h.label == "reference" ? tr("log p %1").arg(h.score, 0, 'f', 3) : tr("score %1").arg(h.score, 0, 'f', 4);
        m_list->addItem(QStringLiteral("%1 (%2)%3\n%4")
                            .arg(QString::fromStdString(h.label), score, h.finished ? QString() : tr(", unfinished"),
                                QString::fromStdString(h.text)));
    }
    m_list->setCurrentRow(0);
    refresh();
}

Links AlignmentPanel::hardLinks(const Tensor& matrix) const
{
    switch (static_cast<Rule>(m_rule->currentIndex())) {
    case Rule::PerSource:
        return argmaxPerSource(matrix);
    case Rule::Intersection:
        return intersectLinks(argmaxPerTarget(matrix), argmaxPerSource(matrix));
    case Rule::GrowDiag:
        return growDiag(argmaxPerTarget(matrix), argmaxPerSource(matrix), false);
    case Rule::GrowDiagFinal:
        return growDiag(argmaxPerTarget(matrix), argmaxPerSource(matrix), true);
    case Rule::PerTarget:
        break;
    }
    return argmaxPerTarget(matrix);
}

void AlignmentPanel::refresh()
{
    m_score.reset();
    m_view->setGold(m_gold);
    const int row = m_list->currentRow();
    if (!m_run || row < 0 || row >= static_cast<int>(m_run->hypotheses.size())) {
        m_scoreLabel->setText(m_gold ? tr("Gold: %1 sure, %2 possible links")
                                           .arg(m_gold->sure.size())
                                           .arg(m_gold->possible.size() - m_gold->sure.size())
                                     : QString());
        return;
    }
    const AlignmentHypothesis& hyp = m_run->hypotheses[static_cast<size_t>(row)];
    try {
        Tensor matrix = wordMatrix(hyp, m_run->source, aggregation());
        Links links = hardLinks(matrix);
        if (m_gold) m_score = scoreAlignments({ links }, { *m_gold });
        const int rows = static_cast<int>(matrix.dim(0));
        m_view->setMatrix(std::move(matrix), m_run->source.words, hyp.target.words);
        m_view->setLinks(std::move(links));
        const QSignalBlocker block(m_step);
        const bool atEnd = m_step->value() == m_step->maximum();
        m_step->setRange(1, std::max(1, rows));
        if (atEnd || m_step->value() > rows) m_step->setValue(m_step->maximum());
        m_view->setVisibleRows(m_step->value());
    } catch (const std::exception& e) {
        showError(QString::fromStdString(e.what()));
    }
    m_scoreLabel->setText(scoreText());
    emit shown();
}

QString AlignmentPanel::scoreText() const
{
    if (!m_score) return m_gold ? QString() : tr("No gold alignment loaded");
    return tr("precision %1\nrecall %2\nAER %3")
        .arg(m_score->precision, 0, 'f', 4)
        .arg(m_score->recall, 0, 'f', 4)
        .arg(m_score->aer, 0, 'f', 4);
}

void AlignmentPanel::showError(const QString& message)
{
    m_lastError = message;
    m_message->setText(message);
    m_message->show();
}

} // namespace attn::ui
