// SPDX-License-Identifier: MIT
#include "mechanisms/mechanisms_panel.h"

#include "core/error.h"
#include "export/figure_export.h"
#include "mechanisms/compare_page.h"
#include "mechanisms/entropy_page.h"
#include "mechanisms/flash_page.h"
#include "mechanisms/gqa_page.h"
#include "mechanisms/linear_page.h"
#include "mechanisms/mechanism.h"
#include "mechanisms/mechanisms_cache.h"
#include "mechanisms/mechanisms_export.h"
#include "mechanisms/mechanisms_figure.h"
#include "mechanisms/positions_page.h"
#include "mechanisms/scale_page.h"
#include "model/family_registry.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHash>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScopeGuard>
#include <QShowEvent>
#include <QSpinBox>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <utility>

namespace attn::ui {

namespace {

constexpr int kCoalesceMs = 150;

/// Example parameters for each family's fields (what the parameter field starts with).
QString defaultParameters(const QString& family)
{
    static const QHash<QString, QString> defaults
        = { { "window", "4" }, { "longformer", "4:0" }, { "bigbird", "4:1:1:0" }, { "strided", "4" },
              { "fixed", "4:1" }, { "padding", "0" }, { "lsh", "4:0" }, { "linformer", "8:0" }, { "performer", "64:0" },
              { "flash", "4:4" }, { "gqa", "1" }, { "swin", "2:1" }, { "rope", "10000" } };
    return defaults.value(family);
}

QSpinBox* spin(int low, int high, int value)
{
    auto* box = new QSpinBox;
    box->setRange(low, high);
    box->setValue(value);
    return box;
}

} // namespace

MechanismsPanel::MechanismsPanel(EngineController* controller, QWidget* parent)
    : QWidget(parent)
{
    m_timer = new QTimer(this);
    m_timer->setSingleShot(true);
    m_timer->setInterval(kCoalesceMs);
    connect(m_timer, &QTimer::timeout, this, &MechanismsPanel::compute);

    m_runner = new InterventionRunner(controller, "mechanisms", this);
    m_source = new QComboBox;
    m_source->addItem(tr("Model head"));
    m_source->addItem(tr("Synthetic q, k, v ~ N(0, 1)"));
    m_block = new QComboBox;
    m_block->setObjectName("mechanismBlock");
    m_block->addItem(tr("Encoder self"), static_cast<int>(AttentionBlock::Encoder));
    m_block->addItem(tr("Decoder self"), static_cast<int>(AttentionBlock::Decoder));
    m_block->addItem(tr("Cross"), static_cast<int>(AttentionBlock::Cross));
    m_block->setToolTip(tr("Encoder-decoders: the encoder's self-attention, the decoder's (causal) self-attention or "
                           "the decoder's cross-attention over the source"));
    m_blockLabel = new QLabel(tr("Block"));
    m_layer = spin(0, 0, 0);
    m_head = spin(0, 0, 0);
    m_tokensCount = spin(2, 512, 32);
    m_dk = spin(1, 1024, 64);
    m_seed = spin(0, 1 << 30, 0);
    m_family = new QComboBox;
    m_family->setObjectName("mechanismVariant");
    for (const std::string& form : mechanismForms()) {
        const QString text = QString::fromStdString(form);
        m_family->addItem(text, text.section(':', 0, 0));
    }
    m_params = new QLineEdit;
    m_params->setObjectName("mechanismParameters");
    m_params->setMaximumWidth(140);
    m_inputFileButton = new QPushButton(tr("Input file…"));
    m_inputFileButton->setObjectName("mechanismInputFile");
    m_inputFileButton->setToolTip(tr("Whisper: a log-mel features .npy [80, frames]; a captioner: an image (the "
                                     "inputs of attnscope-cli mechanisms --features / --image)"));
    m_decoderText = new QLineEdit;
    m_decoderText->setObjectName("mechanismDecoderText");
    m_decoderText->setPlaceholderText(tr("decoder text (empty: generated)"));
    m_decoderText->setMaximumWidth(160);
    m_decoderText->setToolTip(tr("Whisper and the captioner: the decoder's text after its start token, whose decoder "
                                 "self- and cross-attention heads are read; empty: the transcript or caption the model "
                                 "generates greedily from the input file"));
    m_run = new QPushButton(tr("Run"));
    m_cancel = new QPushButton(tr("Cancel"));
    m_export = new QPushButton(tr("Export data…"));
    m_export->setToolTip(tr("Every panel of every page into a folder: heatmaps as .npy and CSV, plots as CSV, and "
                            "each page's figure as PNG"));
    m_export->setEnabled(false);
    m_status = new QLabel;
    m_status->setObjectName("mechanismStatus");
    m_status->setWordWrap(true);
    m_source->setToolTip(tr("Compare on a model head's q, k, v or on random ones"));
    m_layer->setToolTip(tr("The model head's layer"));
    m_head->setToolTip(tr("The model head"));
    m_tokensCount->setToolTip(tr("Number of synthetic tokens"));
    m_dk->setToolTip(tr("Head dimension of the synthetic q and k"));
    m_seed->setToolTip(tr("Random seed of the synthetic input and of randomized variants"));
    m_family->setToolTip(tr("The attention variant compared with exact softmax attention"));
    m_params->setToolTip(tr("The variant's parameters, e.g. k=16 or m=64 (empty: its defaults)"));
    m_run->setToolTip(tr("Compute the variant and its error against exact attention"));
    m_cancel->setToolTip(tr("Stop the computation in progress"));

    // Two rows of their own (not a grid): the spin boxes keep their size, and the status has the rest of its row.
    auto* input = new QHBoxLayout;
    auto* choice = new QHBoxLayout;
    auto add = [](QHBoxLayout* row, const QString& label, QWidget* w) {
        if (!label.isEmpty()) row->addWidget(new QLabel(label));
        row->addWidget(w);
    };
    add(input, tr("Input:"), m_source);
    input->addSpacing(8);
    input->addWidget(m_blockLabel);
    input->addWidget(m_block);
    add(input, tr("Layer"), m_layer);
    add(input, tr("Head"), m_head);
    input->addWidget(m_inputFileButton);
    input->addSpacing(8);
    add(input, tr("T"), m_tokensCount);
    add(input, tr("d_k"), m_dk);
    add(input, tr("Seed"), m_seed);
    input->addStretch(1);
    add(choice, tr("Variant:"), m_family);
    add(choice, tr("Parameters"), m_params);
    choice->addWidget(m_decoderText); // on this row: the input row has no room left at 1024 px
    for (QPushButton* button : { m_run, m_cancel, m_export })
        choice->addWidget(button);
    choice->addWidget(m_status, 1);
    auto* controls = new QVBoxLayout;
    controls->setContentsMargins(4, 4, 4, 0);
    controls->addLayout(input);
    controls->addLayout(choice);

    m_pages = new QTabWidget;
    m_pages->setObjectName("mechanismPages");
    m_compare = new ComparePage;
    m_scale = new ScalePage;
    m_flash = new FlashPage;
    m_gqa = new GqaPage;
    m_linear = new LinearPage;
    m_positions = new PositionsPage;
    m_entropy = new EntropyPage;
    m_pages->addTab(m_compare, tr("Exact vs variant"));
    m_pages->addTab(m_scale, tr("Scale 1/√d_k"));
    m_pages->addTab(m_linear, tr("Linear attention"));
    m_pages->addTab(m_flash, tr("FlashAttention"));
    m_pages->addTab(m_gqa, tr("GQA / MQA"));
    m_pages->addTab(m_positions, tr("Positions"));
    m_pages->addTab(m_entropy, tr("Head entropy"));
    m_figure = new MechanismsFigure(this);
    m_figure->setObjectName(kFigureObjectName); // File > Export figure draws the page in front, every panel of it

    // Empty heatmaps and plots before the first result would only show default axes: say what the tab does instead.
    m_placeholder
        = new QLabel(tr("<h3>The head's exact attention next to a mechanism</h3>"
                        "<p>Pick the input, a model head (after a run: decoders, BERT, an encoder-decoder's encoder, "
                        "decoder or cross-attention, an RNN seq2seq model, or an image model's classified image; "
                        "Whisper and the captioner on the features .npy or image of <b>Input file…</b>) or "
                        "synthetic q, k, v, and a variant, then "
                        "<b>Run</b>. Seven pages show what the variant keeps and loses: exact vs variant, the "
                        "1/√d_k scale, linear attention, FlashAttention, GQA / MQA, positions and the "
                        "entropy of every head.</p>"));
    m_placeholder->setObjectName("mechanismPlaceholder");
    m_placeholder->setWordWrap(true);
    m_placeholder->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_placeholder->setContentsMargins(12, 12, 12, 12);
    m_shown = new QStackedWidget;
    m_shown->addWidget(m_placeholder);
    m_shown->addWidget(m_pages);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_shown, 1);

    connect(m_source, &QComboBox::currentIndexChanged, this, [this] {
        updateInputControls();
        schedule();
    });
    for (QSpinBox* box : { m_layer, m_head, m_tokensCount, m_dk, m_seed })
        connect(box, &QSpinBox::valueChanged, this, &MechanismsPanel::schedule);
    connect(m_family, &QComboBox::currentIndexChanged, this, [this] {
        m_params->setText(defaultParameters(m_family->currentData().toString()));
        m_params->setEnabled(m_family->currentText().contains(':'));
        schedule();
    });
    connect(m_params, &QLineEdit::returnPressed, this, &MechanismsPanel::compute);
    connect(m_run, &QPushButton::clicked, this, &MechanismsPanel::compute);
    connect(m_block, &QComboBox::currentIndexChanged, this, [this] {
        updateBlockRanges();
        schedule();
    });
    connect(m_inputFileButton, &QPushButton::clicked, this, &MechanismsPanel::chooseInputFile);
    connect(m_decoderText, &QLineEdit::editingFinished, this, &MechanismsPanel::schedule);
    connect(m_cancel, &QPushButton::clicked, m_runner, &InterventionRunner::cancel);
    connect(m_export, &QPushButton::clicked, this, &MechanismsPanel::chooseExport);
    connect(m_flash, &FlashPage::tilesChanged, this, &MechanismsPanel::compute);
    connect(m_gqa, &GqaPage::groupsChanged, this, &MechanismsPanel::compute);
    connect(m_runner, &InterventionRunner::failed, this, &MechanismsPanel::showFailure);
    // A request a change superseded is cancelled at once (schedule()), not said: the next one is on its way.
    connect(m_runner, &InterventionRunner::cancelled, this, [this] {
        if (!m_timer->isActive()) showFailure(tr("cancelled"));
    });
    connect(m_pages, &QTabWidget::currentChanged, this, &MechanismsPanel::pageShown);
    setVariant("window:4");
    setSynthetic(true);
    m_timer->stop(); // nothing to compute until the tab is shown or asked
}

void MechanismsPanel::setModel(SummaryPtr summary)
{
    m_runner->forget(); // an answer about the model before is not shown
    m_noHeads.clear();
    m_pixels.reset();
    m_inputFile.clear();
    m_decoderText->clear();
    m_modelPath = summary ? QString::fromStdString(summary->path) : QString();
    m_tokens.clear();
    m_target.clear();
    const ModelKind kind = summary ? summary->config.kind : ModelKind::Decoder;
    m_kind = kind;
    m_fileInput = summary && (kind == ModelKind::Speech || kind == ModelKind::ImageToText);
    m_inputFileButton->setText(tr("Input file…"));
    if (summary && !hasSelfAttention(summary->config)) {
        offerHeads(HeadSource::RnnSeq2Seq, 1, 1); // one cross-attention
    } else if (summary && (kind == ModelKind::Decoder || kind == ModelKind::Encoder)) {
        offerHeads(HeadSource::Session, summary->config.numLayers, summary->config.numHeads);
    } else if (summary
        && (kind == ModelKind::EncoderDecoder || kind == ModelKind::Speech || kind == ModelKind::ImageToText)) {
        const ModelConfig& c = summary->config;
        m_encoderLayers = c.numLayers;
        m_encoderHeads = c.numHeads;
        m_decoderLayers = c.numDecoderLayers;
        m_decoderHeads = c.numDecoderHeads;
        offerHeads(HeadSource::Seq2Seq, c.numLayers, c.numHeads);
        updateBlockRanges();
    } else {
        offerHeads(HeadSource::Session, 0, 0);
        if (summary)
            m_noHeads = tr("(synthetic: the heads of %1 models are not read here)")
                            .arg(QString::fromStdString(modelKindName(kind)));
    }
}

void MechanismsPanel::setImageModel(const QString& path, VisionResultPtr result)
{
    const bool sameImage = m_headSource == HeadSource::Image && m_modelPath == path && m_pixels == result->pixels;
    if (sameImage) return;
    m_modelPath = path;
    m_pixels = result->pixels;
    offerHeads(HeadSource::Image, result->numLayers(), result->numHeads());
    schedule();
}

void MechanismsPanel::setInputFile(const QString& path)
{
    m_inputFile = path;
    m_inputFileButton->setText(path.isEmpty() ? tr("Input file…") : QFileInfo(path).fileName());
    m_inputFileButton->setToolTip(path);
    schedule();
}

void MechanismsPanel::setDecoderText(const QString& text)
{
    m_decoderText->setText(text);
    schedule();
}

void MechanismsPanel::chooseInputFile()
{
    const bool speech = m_kind == ModelKind::Speech;
    const QString path = QFileDialog::getOpenFileName(this,
        speech ? tr("Log-mel features for Whisper") : tr("Image for the captioner"), QString(),
        speech ? tr("NumPy arrays (*.npy)") : tr("Images (*.png *.jpg *.jpeg *.bmp *.ppm)"));
    if (!path.isEmpty()) setInputFile(path);
}

void MechanismsPanel::offerHeads(HeadSource source, int64_t layers, int64_t heads)
{
    m_headSource = source;
    m_headed = layers > 0 && heads > 0;
    const QSignalBlocker blockLayer(m_layer), blockHead(m_head), blockSource(m_source);
    if (m_headed) {
        m_layer->setRange(0, static_cast<int>(layers) - 1);
        m_head->setRange(0, static_cast<int>(heads) - 1);
    }
    m_source->setCurrentIndex(m_headed ? 0 : 1);
    m_result.reset();
    m_shown->setCurrentWidget(m_placeholder);
    m_export->setEnabled(false);
    updateInputControls();
}

void MechanismsPanel::runChanged(const std::vector<TokenChip>& tokens, const std::vector<TokenChip>& target)
{
    m_tokens = tokens;
    m_target = target;
    if (m_source->currentIndex() == 0) schedule();
}

void MechanismsPanel::setHead(int64_t layer, int64_t head)
{
    m_layer->setValue(static_cast<int>(layer));
    m_head->setValue(static_cast<int>(head));
}

void MechanismsPanel::setBlock(AttentionBlock block)
{
    m_block->setCurrentIndex(m_block->findData(static_cast<int>(block)));
}

void MechanismsPanel::updateBlockRanges()
{
    if (m_headSource != HeadSource::Seq2Seq) return;
    const bool encoder = m_block->currentData().toInt() == static_cast<int>(AttentionBlock::Encoder);
    m_layer->setRange(0, static_cast<int>(std::max<int64_t>(1, encoder ? m_encoderLayers : m_decoderLayers)) - 1);
    m_head->setRange(0, static_cast<int>(std::max<int64_t>(1, encoder ? m_encoderHeads : m_decoderHeads)) - 1);
}

void MechanismsPanel::setSynthetic(bool synthetic)
{
    m_source->setCurrentIndex(synthetic ? 1 : 0);
    updateInputControls();
}

void MechanismsPanel::setVariant(const QString& variant)
{
    const QString family = variant.section(':', 0, 0);
    for (int i = 0; i < m_family->count(); ++i)
        if (m_family->itemData(i).toString() == family) m_family->setCurrentIndex(i);
    m_params->setText(variant.section(':', 1));
    schedule();
}

QString MechanismsPanel::variant() const
{
    const QString family = m_family->currentData().toString();
    return m_params->isEnabled() && !m_params->text().trimmed().isEmpty() ? family + ":" + m_params->text().trimmed()
                                                                          : family;
}

QString MechanismsPanel::status() const
{
    return m_status->text();
}

void MechanismsPanel::updateInputControls()
{
    const bool synthetic = m_source->currentIndex() == 1;
    auto* item = qobject_cast<QStandardItemModel*>(m_source->model());
    if (item && item->item(0)) item->item(0)->setEnabled(m_headed);
    m_layer->setEnabled(!synthetic);
    m_head->setEnabled(!synthetic);
    m_tokensCount->setEnabled(synthetic);
    m_dk->setEnabled(synthetic);
    const bool blocks = m_headSource == HeadSource::Seq2Seq;
    m_block->setVisible(blocks);
    m_blockLabel->setVisible(blocks);
    m_block->setEnabled(!synthetic);
    m_inputFileButton->setVisible(m_fileInput);
    m_inputFileButton->setEnabled(!synthetic);
    m_decoderText->setVisible(m_fileInput);
    m_decoderText->setEnabled(!synthetic);
}

void MechanismsPanel::schedule()
{
    // What runs now is for the request before this change: it stops at its next poll (between two draws of a sweep)
    // instead of holding the one engine thread until the coalesced request is sent.
    if (m_runner->busy()) m_runner->cancel();
    // A hidden tab only notes the change: a head switch in another view would otherwise queue a whole forward and the
    // sweeps on the one engine thread (at 4k tokens the other views' requests waited seconds behind it).
    m_stale = !isVisible();
    if (m_stale) return;
    m_timer->start();
}

void MechanismsPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (!m_result || m_stale) schedule();
}

void MechanismsPanel::compute()
{
    m_timer->stop();
    auto request = std::make_shared<MechanismsRequest>();
    request->synthetic = m_source->currentIndex() == 1;
    request->layer = m_layer->value();
    request->head = m_head->value();
    request->source = m_headSource;
    request->modelPath = m_modelPath.toStdString();
    for (const TokenChip& chip : m_tokens)
        request->sourceIds.push_back(chip.id);
    for (const TokenChip& chip : m_target)
        request->targetIds.push_back(chip.id);
    request->tokenChips = m_tokens;
    request->targetChips = m_target;
    request->block = static_cast<AttentionBlock>(m_block->currentData().toInt());
    request->pixels = m_pixels;
    request->inputFile = m_inputFile.toStdString();
    request->decoderText = m_fileInput ? m_decoderText->text().trimmed().toStdString() : std::string();
    request->tokens = m_tokensCount->value();
    request->dk = m_dk->value();
    request->seed = static_cast<uint64_t>(m_seed->value());
    request->variant = variant().toStdString();
    request->flashBq = m_flash->blockQ();
    request->flashBk = m_flash->blockK();
    request->gqaGroups = m_gqa->groups();
    request->parts = m_everyPage ? kAllParts : shownPart();
    m_status->setText(tr("Computing %1 …").arg(variant()));
    m_runner->post<MechanismsPtr>(
        [request = MechanismsRequestPtr(std::move(request))](EngineContext& context, const RerunHooks& hooks) {
            auto cache = context.session<MechanismsCache>(kMechanismsCacheKey);
            if (!cache) context.setSession(kMechanismsCacheKey, cache = std::make_shared<MechanismsCache>());
            return computeMechanisms(
                *request, context.models(), [&hooks] { return !hooks.cancelRequested(); }, cache.get());
        },
        [this](MechanismsPtr result) { showResult(std::move(result)); });
}

void MechanismsPanel::computeEveryPage()
{
    m_everyPage = true;
    compute();
}

unsigned MechanismsPanel::partOf(const QWidget* page) const
{
    if (page == m_scale) return kScalePart;
    if (page == m_linear) return kLinearPart;
    if (page == m_flash) return kFlashPart;
    if (page == m_gqa) return kGqaPart;
    if (page == m_positions) return kPositionsPart;
    return kComparePart; // Exact vs variant, and the entropy map (every model head's result has it)
}

unsigned MechanismsPanel::shownPart() const
{
    return partOf(m_pages->currentWidget());
}

void MechanismsPanel::pageShown(int index)
{
    QWidget* page = m_pages->widget(index);
    showFigureOf(index);
    if (!m_result || !page || m_filled.contains(page)) return;
    if (m_result->parts & partOf(page)) return fillPage(page);
    page->setEnabled(false); // the last head's figures, greyed until this one's arrive
    schedule();
}

void MechanismsPanel::fillPage(QWidget* page)
{
    if (page == m_compare) m_compare->showResult(*m_result);
    if (page == m_scale) m_scale->showResult(*m_result);
    if (page == m_flash) m_flash->showResult(m_result);
    if (page == m_gqa) m_gqa->showResult(*m_result);
    if (page == m_linear) m_linear->showResult(*m_result);
    if (page == m_positions) m_positions->showResult(*m_result);
    if (page == m_entropy) m_entropy->showResult(*m_result);
    page->setEnabled(true);
    m_filled << page;
    if (page == m_pages->currentWidget()) showFigureOf(m_pages->currentIndex());
}

void MechanismsPanel::showFigureOf(int index)
{
    QString title = m_pages->tabText(index);
    if (m_result) {
        title += tr(": %1 on %2")
                     .arg(QString::fromStdString(m_result->request.variant),
                         QString::fromStdString(m_result->inputs.origin));
        if (m_result->inputs.layer >= 0)
            title += tr(", layer %1 head %2").arg(m_result->inputs.layer).arg(m_result->inputs.head);
    }
    m_figure->setPage(m_pages->widget(index), title);
}

void MechanismsPanel::exportPageFigure(int index, const QString& path, int dpi)
{
    if (index < 0 || index >= m_pages->count())
        throw Error("export " + path.toStdString() + ": there is no Mechanisms page " + std::to_string(index));
    showFigureOf(index);
    const auto restore = qScopeGuard([this] { showFigureOf(m_pages->currentIndex()); });
    exportWidget(*m_figure, path, figureFormatFromPath(path), { m_figure->size(), dpi });
}

void MechanismsPanel::showResult(MechanismsPtr result)
{
    m_result = std::move(result);
    m_filled.clear();
    const bool everyPage = m_result->parts == kAllParts && m_everyPage;
    for (int i = 0; i < m_pages->count(); ++i) {
        QWidget* page = m_pages->widget(i);
        if ((everyPage || page == m_pages->currentWidget()) && (m_result->parts & partOf(page))) fillPage(page);
    }
    if (everyPage) m_everyPage = false;
    // An answer sent before the page in front was opened: that page's part is still to come.
    if (!(m_result->parts & shownPart())) {
        m_pages->currentWidget()->setEnabled(false);
        if (!m_timer->isActive()) schedule();
    }
    m_shown->setCurrentWidget(m_pages);
    m_export->setEnabled(true);
    const MechanismMetrics& m = m_result->report.metrics;
    m_status->setText(tr("%1: mass kept %2, KL %3, output error %4 %5")
                          .arg(QString::fromStdString(m_result->request.variant), metricText(m.massKept),
                              metricText(m.klMean), metricText(m.outRelErr), m_noHeads)
                          .trimmed());
    if (everyPage && !m_exportDir.isEmpty()) writeExport(std::exchange(m_exportDir, QString()));
    emit resultShown();
}

void MechanismsPanel::chooseExport()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export the Mechanisms data into a folder"));
    if (dir.isEmpty()) return;
    // The pages not looked at hold nothing yet: every page is computed first, then written.
    m_exportDir = dir;
    computeEveryPage();
}

void MechanismsPanel::writeExport(const QString& dir)
{
    try {
        QStringList files = exportMechanismsData(*m_pages, dir);
        for (int p = 0; p < m_pages->count(); ++p) {
            files << QDir(dir).filePath("mechanisms_" + fileStem(m_pages->tabText(p)) + ".png");
            exportPageFigure(p, files.back());
        }
        m_status->setText(tr("wrote %1 files (.npy, .csv, .png) to %2").arg(files.size()).arg(dir.toHtmlEscaped()));
    } catch (const Error& e) {
        showFailure(QString::fromStdString(e.what()));
    }
}

void MechanismsPanel::showFailure(const QString& message)
{
    m_status->setText(tr("<span style='color:#8a1111'>%1</span>").arg(message.toHtmlEscaped()));
    emit failed(message);
}

} // namespace attn::ui
