// SPDX-License-Identifier: MIT
#include "align/alignment_panel.h"

#include "align/alignment_controller.h"
#include "align/alignment_view.h"
#include "align/gold_match.h"
#include "core/error.h"
#include "export/figure_export.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

namespace attn::ui {
namespace {
enum class Rule { PerTarget, PerSource, Intersection, GrowDiag, GrowDiagFinal, Reverse };
} // namespace

AlignmentPanel::AlignmentPanel(EngineController* engine, QWidget* parent)
    : QWidget(parent)
    , m_controller(new AlignmentController(engine, this))
    , m_view(new AlignmentView)
    , m_source(new QLineEdit)
    , m_reference(new QLineEdit)
    , m_goldPath(new QLineEdit)
    , m_goldSentence(new QSpinBox)
    , m_beamWidth(new QSpinBox)
    , m_layer(new QComboBox)
    , m_heads(new QComboBox)
    , m_rule(new QComboBox)
    , m_reversePath(new QLineEdit)
    , m_stepButton(new QPushButton(tr("&Step")))
    , m_runButton(new QPushButton(tr("&Run")))
    , m_backButton(new QPushButton(tr("&Back")))
    , m_resetButton(new QPushButton(tr("Rese&t")))
    , m_stepLabel(new QLabel)
    , m_directions(new QLabel)
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
    m_goldSentence->setToolTip(tr("Which sentence of the gold file is the shown pair (0-based)"));
    m_source->setToolTip(tr("The sentence to translate"));
    m_reference->setToolTip(tr("A translation to align teacher-forced; empty: the model's own (beam) translation"));
    m_goldPath->setToolTip(tr("Human word alignments to score the attention against (AER, precision, recall)"));
    m_reversePath->setToolTip(tr("The target-to-source direction, for the symmetrized rules"));
    m_layer->setToolTip(tr("The layer whose cross-attention aligns (or the mean of layers)"));
    m_heads->setToolTip(tr("The head, or the mean of the layer's heads"));
    m_alignButton->setToolTip(tr("Translate (or teacher-force the reference) and align"));
    m_beamWidth->setObjectName("beamWidth");
    m_beamWidth->setPrefix(tr("beams "));
    m_beamWidth->setRange(0, 16);
    m_beamWidth->setValue(3);
    m_beamWidth->setToolTip(tr("Beam search width (0: only the reference)"));
    m_rule->addItems({ tr("argmax per target"), tr("argmax per source"), tr("intersection"), tr("grow-diag"),
        tr("grow-diag-final"), tr("reverse direction") });
    m_rule->setToolTip(tr("Hard alignment. Intersection and grow-diag combine the argmax per target word with the "
                          "other direction: a reverse model's or file's links when one is loaded, else the argmax "
                          "per source word of the shown matrix"));
    m_reversePath->setObjectName("alignReverse");
    m_reversePath->setPlaceholderText(
        tr("Other direction (optional): reverse model folder, or its Pharaoh file (line = gold sentence)"));
    m_stepButton->setObjectName("alignStep");
    m_stepButton->setToolTip(tr("Decode one more target token (greedy, KV cache) and add its cross-attention row"));
    m_runButton->setObjectName("alignRun");
    m_runButton->setToolTip(tr("Decode step after step until the end of the translation; again to pause"));
    m_backButton->setToolTip(tr("Drop the last decoded token"));
    m_resetButton->setToolTip(tr("Back to no target token"));
    m_stepLabel->setObjectName("alignStepLabel");
    m_directions->setObjectName("alignDirections");
    m_directions->setWordWrap(true);
    m_list->setObjectName("hypotheses");
    m_list->setWordWrap(true);
    for (QComboBox* box : { m_layer, m_heads, m_rule })
        box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_scoreLabel->setObjectName("alignScore");
    m_scoreLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_scoreLabel->setWordWrap(true); // a gold-mismatch warning is a sentence
    m_message->setWordWrap(true);
    m_message->setStyleSheet("QLabel { color: #8a1111; }");

    auto* browse = new QPushButton(tr("Gold…"));
    browse->setToolTip(tr("Choose a gold alignment file"));
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
    auto* reverseModel = new QPushButton(tr("Model…"));
    auto* reverseFile = new QPushButton(tr("File…"));
    reverseModel->setToolTip(tr("Choose a reverse-direction model folder"));
    reverseFile->setToolTip(tr("Choose a Pharaoh file of reverse-direction links"));
    auto* reverseRow = new QHBoxLayout;
    reverseRow->addWidget(m_reversePath, 1);
    reverseRow->addWidget(reverseModel);
    reverseRow->addWidget(reverseFile);
    inputs->addRow(tr("Reverse"), reverseRow);
    auto* viewRow = new QHBoxLayout;
    viewRow->addWidget(m_layer);
    viewRow->addWidget(m_heads);
    viewRow->addWidget(m_rule);
    viewRow->addSpacing(16);
    viewRow->addWidget(new QLabel(tr("Decode:")));
    for (QPushButton* b : { m_stepButton, m_runButton, m_backButton, m_resetButton })
        viewRow->addWidget(b);
    viewRow->addWidget(m_stepLabel, 1);
    inputs->addRow(tr("View"), viewRow);

    auto* side = new QWidget;
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    sideLayout->addWidget(new QLabel(tr("Hypotheses (score)")));
    sideLayout->addWidget(m_list, 1);
    sideLayout->addWidget(m_scoreLabel);
    sideLayout->addWidget(m_directions);
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
    connect(reverseModel, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getExistingDirectory(this, tr("Reverse-direction model"));
        if (!path.isEmpty()) setReverse(path);
    });
    connect(reverseFile, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Reverse-direction alignment (Pharaoh)"));
        if (!path.isEmpty()) setReverse(path);
    });
    connect(m_reversePath, &QLineEdit::editingFinished, this, [this] { setReverse(m_reversePath->text()); });
    connect(m_stepButton, &QPushButton::clicked, this, &AlignmentPanel::step);
    connect(m_runButton, &QPushButton::clicked, this,
        [this] { m_controller->isRunning() ? pauseDecoding() : runDecoding(); });
    connect(m_backButton, &QPushButton::clicked, this, &AlignmentPanel::back);
    connect(m_resetButton, &QPushButton::clicked, this, &AlignmentPanel::resetDecoding);
    connect(m_controller, &AlignmentController::decodingChanged, this, &AlignmentPanel::showDecoding);
    connect(m_controller, &AlignmentController::reverseOpened, this, [this] {
        m_controller->addReverse(m_run);
        refresh();
    });
    connect(m_controller, &AlignmentController::available, this, &AlignmentPanel::availableChanged);
    connect(m_controller, &AlignmentController::ready, this, &AlignmentPanel::showRun);
    connect(m_controller, &AlignmentController::matrixReady, this,
        [this](AlignmentRunPtr run, int hypothesis, WordMatrixPtr matrix) {
            if (run != m_matrix.run || hypothesis != m_matrix.hypothesis) return; // not what is asked for now
            m_matrix.values = std::move(matrix);
            showMatrix();
        });
    connect(m_controller, &AlignmentController::failed, this, &AlignmentPanel::showError);
}

void AlignmentPanel::openModel(const QString& path)
{
    m_run.reset();
    m_matrix = {};
    m_list->clear();
    m_controller->open(path);
    showDecoding(0, false, false);
}

void AlignmentPanel::closeModel()
{
    const bool wasOpen = m_controller->isOpen();
    m_run.reset();
    m_matrix = {};
    m_list->clear();
    m_controller->close();
    m_view->setMatrix(Tensor(), {}, {});
    m_view->setLinks({});
    showDecoding(0, false, false);
    if (wasOpen) emit availableChanged(false);
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

void AlignmentPanel::setReverse(const QString& path)
{
    {
        const QSignalBlocker block(m_reversePath);
        m_reversePath->setText(path);
    }
    m_reverseFile.clear();
    if (path.isEmpty() || QFileInfo(path).isDir()) {
        m_controller->openReverse(path); // reverseOpened() recomputes the shown run with it
    } else {
        m_controller->openReverse(QString());
        try {
            for (const GoldAlignment& line : readGoldAlignments(path.toStdString()))
                m_reverseFile.push_back(transposeLinks(line.possible));
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

void AlignmentPanel::step()
{
    m_message->hide();
    m_lastError.clear();
    m_controller->step(m_source->text());
}

void AlignmentPanel::runDecoding()
{
    m_message->hide();
    m_lastError.clear();
    m_controller->run(m_source->text());
    m_runButton->setText(tr("&Pause"));
}

void AlignmentPanel::pauseDecoding()
{
    m_controller->pause();
    m_runButton->setText(tr("&Run"));
}

void AlignmentPanel::back()
{
    m_controller->back();
}

void AlignmentPanel::resetDecoding()
{
    m_controller->reset();
}

void AlignmentPanel::showDecoding(int steps, bool finished, bool running)
{
    const QString tokens = steps == 1 ? tr("1 token") : tr("%1 tokens").arg(steps);
    m_stepLabel->setText(steps == 0 && !finished ? QString()
            : finished                           ? tr("%1 decoded, finished").arg(tokens)
                                                 : tr("%1 decoded (newest row outlined)").arg(tokens));
    m_stepButton->setEnabled(!finished);
    m_runButton->setEnabled(!finished || running);
    m_runButton->setText(running ? tr("&Pause") : tr("&Run"));
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
    // Step-by-step decoding sends a run per step: keep the user's choice while the model's shape stays.
    if (m_run->empty() || (m_layer->count() == m_run->layers() + 1 && m_heads->count() == m_run->heads() + 2)) return;
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
    const int row = m_run && m_run->hypotheses.size() == run->hypotheses.size() ? m_list->currentRow() : 0;
    m_run = std::move(run);
    fillAggregationChoices();
    const QSignalBlocker block(m_list);
    m_list->clear();
    for (const AlignmentHypothesis& h : m_run->hypotheses) {
        const bool beam = h.label.rfind("beam", 0) == 0; // beams carry normalised scores, the others log p
        const QString score = beam ? tr("score %1").arg(h.score, 0, 'f', 4) : tr("log p %1").arg(h.score, 0, 'f', 3);
        const QString state = h.finished ? QString() : m_run->stepwise ? tr(", decoding") : tr(", unfinished");
        m_list->addItem(QStringLiteral("%1 (%2)%3\n%4")
                            .arg(QString::fromStdString(h.label), score, state, QString::fromStdString(h.text)));
    }
    m_list->setCurrentRow(std::max(0, row));
    refresh();
}

std::optional<Links> AlignmentPanel::reverseLinks(const AlignmentHypothesis& hyp) const
{
    if (m_reverseFile.empty()) return m_controller->hasReverse() ? hyp.reverseLinks : std::nullopt;
    const int sentence = m_goldSentence->value();
    if (sentence >= static_cast<int>(m_reverseFile.size()))
        throw Error(m_reversePath->text().toStdString(),
            "has " + std::to_string(m_reverseFile.size()) + " lines, no sentence " + std::to_string(sentence));
    return m_reverseFile[static_cast<size_t>(sentence)];
}

Links AlignmentPanel::hardLinks(const Tensor& matrix, const AlignmentHypothesis& hyp) const
{
    const Rule rule = static_cast<Rule>(m_rule->currentIndex());
    if (rule == Rule::PerTarget) return argmaxPerTarget(matrix);
    if (rule == Rule::PerSource) return argmaxPerSource(matrix);
    const std::optional<Links> reverse = reverseLinks(hyp);
    if (reverse) expectLinksWithin(*reverse, matrix.dim(1), matrix.dim(0), "the reverse direction");
    if (rule == Rule::Reverse) {
        if (!reverse) throw Error("alignment: load a reverse model or a reverse alignment file first");
        return *reverse;
    }
    const Symmetrization how = rule == Rule::Intersection ? Symmetrization::Intersection
        : rule == Rule::GrowDiag                          ? Symmetrization::GrowDiag
                                                          : Symmetrization::GrowDiagFinal;
    return symmetrize(argmaxPerTarget(matrix), reverse ? *reverse : argmaxPerSource(matrix), how);
}

QString AlignmentPanel::directionsText() const
{
    const int row = m_list->currentRow();
    const bool haveRun = m_run && row >= 0 && row < static_cast<int>(m_run->hypotheses.size());
    if (!m_reverseFile.empty()) return tr("Other direction: the reverse file, line %1").arg(m_goldSentence->value());
    if (m_controller->hasReverse() && haveRun && m_run->hypotheses[static_cast<size_t>(row)].reverseLinks)
        return tr("Other direction: the reverse model");
    if (m_controller->hasReverse()) return tr("Other direction: the reverse model (once the translation is finished)");
    return tr("Other direction: argmax per source word of the shown matrix (no reverse model or file)");
}

void AlignmentPanel::refresh()
{
    m_directions->setText(directionsText());
    const int row = m_list->currentRow();
    if (!m_run || row < 0 || row >= static_cast<int>(m_run->hypotheses.size()) || m_run->empty()) {
        m_matrix = {};
        m_score.reset();
        m_goldWarning.clear();
        m_view->setGold(m_gold);
        if (m_run && m_run->empty()) { // step-by-step decoding before its first step
            m_view->setMatrix(Tensor(), m_run->source.words, {});
            m_view->setLinks({});
            m_scoreLabel->setText(scoreText());
            emit shown();
            return;
        }
        m_scoreLabel->setText(m_gold ? tr("Gold: %1 sure, %2 possible links")
                                           .arg(m_gold->sure.size())
                                           .arg(m_gold->possible.size() - m_gold->sure.size())
                                     : QString());
        return;
    }
    const AlignmentAggregation wanted = aggregation();
    if (m_matrix.values && m_matrix.run == m_run && m_matrix.hypothesis == row && m_matrix.aggregation == wanted)
        return showMatrix(); // the gold, the rule or the other direction changed: the matrix stays
    // The tiles of every chosen layer and head: on the engine thread, like the other tabs' attention.
    m_matrix = { m_run, row, wanted, nullptr };
    m_controller->requestMatrix(m_run, row, wanted);
}

void AlignmentPanel::showMatrix()
{
    m_score.reset();
    m_goldWarning.clear();
    m_view->setGold(m_gold);
    const AlignmentHypothesis& hyp = m_run->hypotheses[static_cast<size_t>(m_matrix.hypothesis)];
    try {
        const Tensor& matrix = *m_matrix.values;
        const int rows = static_cast<int>(matrix.dim(0));
        m_view->setMatrix(matrix, m_run->source.words, hyp.target.words);
        m_view->setNewestRow(m_run->stepwise && !hyp.finished ? rows - 1 : -1);
        Links links = hardLinks(matrix, hyp);
        if (m_gold) {
            m_score = scoreAlignments({ links }, { *m_gold });
            if (const auto mismatch = checkGoldSentence(m_goldPath->text().toStdString(), m_goldSentence->value(),
                    *m_gold, m_run->source.words, hyp.target.words, !m_run->stepwise || hyp.finished))
                m_goldWarning = QString::fromStdString(mismatch->message)
                    + (mismatch->matchingSentence ? tr(" (set the sentence to %1)").arg(*mismatch->matchingSentence)
                                                  : QString());
        }
        m_view->setLinks(std::move(links));
    } catch (const std::exception& e) {
        m_view->setLinks({});
        showError(QString::fromStdString(e.what()));
    }
    m_scoreLabel->setText(scoreText());
    emit shown();
}

QString AlignmentPanel::scoreText() const
{
    if (!m_score) return m_gold ? QString() : tr("No gold alignment loaded");
    const QString warning = m_goldWarning.isEmpty() ? QString() : QString::fromUtf8("⚠ ") + m_goldWarning + "\n";
    return warning + tr("precision %1\nrecall %2\nAER %3")
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
