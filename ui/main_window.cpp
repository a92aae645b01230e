// SPDX-License-Identifier: MIT
#include "main_window.h"

#include "align/alignment_panel.h"
#include "caption/caption_panel.h"
#include "decode/decode_panel.h"
#include "demo_models.h"
#include "export/export_menu.h"
#include "help/first_run_hint.h"
#include "help/help_menu.h"
#include "atlas/atlas_panel.h"
#include "intervention/compare_panel.h"
#include "intervention/intervention_panel.h"
#include "intervention/logit_lens_panel.h"
#include "mechanisms/entropy_page.h"
#include "mechanisms/mechanisms_panel.h"
#include "pruning/pruning_panel.h"
#include "model/family_registry.h"
#include "plots/heatmap_view.h"
#include "plots/router_view.h"
#include "plots/stats_view.h"
#include "vision/vision_controller.h"
#include "vision/vision_view.h"
#include "widgets/backend_menu.h"
#include "widgets/chips_area.h"
#include "widgets/head_grid_view.h"
#include "widgets/head_lines_view.h"
#include "widgets/model_view.h"
#include "widgets/token_chips_view.h"
#include "widgets/token_link.h"
#include "widgets/token_range_bar.h"
#include "workspace/workspace_controller.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QImageReader>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>
#include <exception>
#include <limits>
#include <optional>
#include <utility>

namespace attn::ui {

namespace {
constexpr int kMaxRecent = 8;
constexpr int kInputDebounceMs = 250;
// What the Input dock shows of a long input's chips before they scroll: two rows, or on a tall screen as many as fit
// in this share of the window's height (two rows are ~7 % of a 700 px window, four ~7 % of a 1440 px one).
constexpr int kChipRows = 2;
constexpr double kChipShare = 0.08;
const char* kRecentKey = "recentModels";

/// The toolbar's range edits the current tab's sequence: the decoded text's on the Decode tab (its own positions),
/// the main input's (`input`, over `shown`) elsewhere.
void addressRangeBar(
    TokenRangeBar& bar, bool onDecode, const DecodePanel& decode, TokenLink* input, const SnapshotPtr& shown)
{
    if (onDecode) {
        const int64_t positions = std::max<int64_t>(0, decode.heatmapPositions());
        bar.address(decode.tokenLink(), positions, positions, MainWindow::tr("decoded:"));
    } else {
        bar.address(input, shown ? shown->numQueries() : 0, shown ? shown->numKeys() : 0, MainWindow::tr("input:"));
    }
}

/// The engine-thread session of the unmodified pass the Intervene and Logit lens tabs share.
const std::string kKeptRunKey = "intervention/main-input";

/// The Pruning tab (found among the tabs' children rather than kept as a member: main_window.h, which every GUI test
/// includes, stays as it is).
PruningPanel* pruningTab(const QTabWidget* tabs) {
    return tabs->findChild<PruningPanel*>();
}

/// The description of the model at `path`, or none when it cannot be read (the engine's open then reports why).
std::optional<ModelConfig> probedConfig(const QString& path) {
    try {
        return probeModel(path.toStdString()).config;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

/// The views an encoder-decoder offers; an RNN seq2seq model has no self-attention.
void fillAttentionKinds(QComboBox* box, bool selfAttention) {
    const QSignalBlocker block(box);
    box->clear();
    box->addItem(MainWindow::tr("Cross-attention (target → source)"), static_cast<int>(AttentionKind::Cross));
    if (!selfAttention) return;
    box->addItem(MainWindow::tr("Encoder self-attention"), static_cast<int>(AttentionKind::EncoderSelf));
    box->addItem(MainWindow::tr("Decoder self-attention"), static_cast<int>(AttentionKind::DecoderSelf));
}

QScrollArea* scrolled(QWidget* inner) {
    auto* area = new QScrollArea;
    area->setWidget(inner);
    area->setWidgetResizable(true);
    return area;
}
bool isWorkspacePath(const QString& path) {
    return path.endsWith(".attnscope", Qt::CaseInsensitive);
}

} // namespace

MainWindow::MainWindow(ProviderFactory factory, QWidget* parent)
    : QMainWindow(parent)
    , m_controller(new EngineController(std::move(factory), this)) {
    setWindowTitle(tr("AttnScope"));
    resize(1280, 800);
    setAcceptDrops(true);

    m_heatmap = new HeatmapView;
    // A long input's tiles and overviews are derived on the engine thread, between the heads being summarized.
    m_heatmap->setDeriver(std::bind_front(&EngineController::derive, m_controller));
    m_grid = new HeadGridView;
    m_lines = new HeadLinesView;
    m_stats = new StatsView;
    m_tabs = new QTabWidget;
    m_tabs->setObjectName("viewTabs");
    m_tabs->addTab(m_heatmap, tr("&Heatmap"));
    m_tabs->addTab(scrolled(m_lines), tr("Head &view"));
    m_model = new ModelView;
    m_tabs->addTab(scrolled(m_model), tr("M&odel view"));
    m_tabs->addTab(scrolled(m_grid), tr("&All heads"));
    m_tabs->addTab(m_stats, tr("&Statistics"));
    // Every tab is a client of the one engine (m_controller): one thread, one copy of each model, one backend.
    m_decode = new DecodePanel(m_controller); // enabled for models that generate
    m_decode->setProperty("collapsesDocks", QStringList { "inputDock", "modelDock" });
    m_tabs->addTab(m_decode, tr("&Decode"));
    m_vision = new VisionView(m_controller);
    m_vision->setProperty("collapsesDocks", QStringList { "inputDock", "modelDock" });
    m_tabs->addTab(m_vision, tr("V&ision"));
    m_tabs->setTabEnabled(m_tabs->indexOf(m_vision), false);
    m_caption = new CaptionPanel(m_controller); // enabled for image-to-text models only
    m_caption->setProperty("collapsesDocks", QStringList { "inputDock", "modelDock" });
    m_tabs->addTab(m_caption, tr("Ca&ption"));
    m_tabs->setTabEnabled(m_tabs->indexOf(m_caption), false);
    m_router = new RouterView; // enabled for mixture-of-experts runs
    m_tabs->addTab(m_router, tr("&Router"));
    m_tabs->setTabEnabled(m_tabs->indexOf(m_router), false);
    m_align = new AlignmentPanel(m_controller); // enabled once it has opened an encoder-decoder or RNN seq2seq model
    m_align->setProperty("collapsesDocks", QStringList { "inputDock", "modelDock" });
    m_tabs->addTab(m_align, tr("A&lignment"));
    m_tabs->setTabEnabled(m_tabs->indexOf(m_align), false);
    connect(m_align, &AlignmentPanel::availableChanged, this,
        [this](bool on) { m_tabs->setTabEnabled(m_tabs->indexOf(m_align), on); });
    m_mechanisms = new MechanismsPanel(m_controller); // a client of the one engine thread
    // The tab runs the main input's tokens (edited on the attention tabs): both docks fold away for its plots.
    m_mechanisms->setProperty("collapsesDocks", QStringList { "inputDock", "modelDock" });
    m_tabs->addTab(m_mechanisms, tr("&Mechanisms"));
    // Ablations of the main input, on the one engine thread, from an unmodified pass kept there.
    m_intervene = new InterventionPanel(m_controller, kKeptRunKey);
    m_intervene->setProperty("collapsesDocks", QStringList { "modelDock" });
    m_tabs->addTab(m_intervene, tr("I&ntervene"));
    m_lens = new LogitLensPanel(m_controller, kKeptRunKey); // reads the same kept pass
    m_lens->setProperty("collapsesDocks", QStringList { "modelDock" });
    m_tabs->addTab(m_lens, tr("Lo&git lens"));
    m_compare = new ComparePanel(m_controller); // two heads, layers or prompts side by side
    m_compare->setProperty("collapsesDocks", QStringList { "modelDock" });
    m_tabs->addTab(m_compare, tr("Compar&e"));
    m_atlas = new AtlasPanel(m_controller, kKeptRunKey); // maps the heads from the same kept pass
    m_atlas->setProperty("collapsesDocks", QStringList { "modelDock" });
    m_tabs->addTab(m_atlas, tr("Head a&tlas"));
    auto* pruning = new PruningPanel(m_controller); // head importance and the pruning curve, as `attnscope-cli prune`
    pruning->setProperty("collapsesDocks", QStringList { "modelDock" });
    m_tabs->addTab(pruning, tr("Pr&uning"));

    m_errorBanner = new QLabel;
    m_errorBanner->setObjectName("errorBanner");
    m_errorBanner->setWordWrap(true);
    m_errorBanner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_errorBanner->setStyleSheet("QLabel { background: #fde2e1; color: #8a1111; border: 1px solid #e0a0a0;"
                                 " padding: 6px; }");
    m_errorBanner->hide();
    auto* central = new QWidget;
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_errorBanner);
    layout->addWidget(m_tabs, 1);
    setCentralWidget(central);

    m_link = new TokenLink(this);
    m_workspaces = new WorkspaceController(this);
    connect(m_workspaces, &WorkspaceController::failed, this, &MainWindow::showError);
    buildDocks();
    buildMenus();
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::fitDocksToTab);
    fitDocksToTab();

    m_status = new QLabel;
    m_status->setObjectName("statusText");
    statusBar()->addWidget(m_status, 1);
    m_progress = new QProgressBar;
    m_progress->setMaximumWidth(220);
    m_progress->hide();
    statusBar()->addPermanentWidget(m_progress);

    m_inputTimer = new QTimer(this);
    m_inputTimer->setSingleShot(true);
    m_inputTimer->setInterval(kInputDebounceMs);
    connect(m_inputTimer, &QTimer::timeout, this, [this] {
        // An image-to-text model has no text input (the Caption tab opens images): typing, or a demo, runs nothing.
        if (!m_summary || m_caption->isEnabled()) return;
        m_controller->tokenize(m_input->text());
        if (!m_targetRow->isHidden()) m_controller->tokenize(m_target->text(), true);
        if (m_live->isChecked()) requestRun();
    });
    for (QLineEdit* edit : { m_input, m_target }) {
        connect(edit, &QLineEdit::textChanged, m_inputTimer, qOverload<>(&QTimer::start));
        connect(edit, &QLineEdit::returnPressed, this, &MainWindow::requestRun);
    }
    connect(m_kindBox, &QComboBox::currentIndexChanged, this, [this] {
        if (m_run) showSnapshot(m_run->view(attentionKind()));
    });
    connect(m_runButton, &QPushButton::clicked, this, &MainWindow::requestRun);
    connect(m_cancelButton, &QPushButton::clicked, m_controller, &EngineController::cancel);

    connect(m_controller, &EngineController::modelLoaded, this, [this](SummaryPtr summary) {
        m_summary = std::move(summary);
        clearError();
        setPlaceholders(tr("No attention yet: type an input (Enter runs)"));
        m_info->setPlainText(infoText());
        setWindowTitle(tr("AttnScope — %1").arg(QFileInfo(QString::fromStdString(m_summary->path)).fileName()));
        m_status->setText(tr("Opened %1").arg(QString::fromStdString(m_summary->path)));
        addRecent(QString::fromStdString(m_summary->path));
        const bool generates = (m_summary->config.capabilities & kGenerate) != 0;
        m_tabs->setTabEnabled(m_tabs->indexOf(m_decode), generates);
        if (generates) m_decode->openModel(QString::fromStdString(m_summary->path));
        if (generates && std::exchange(m_reopenDecode, false)) m_tabs->setCurrentWidget(m_decode);
        if (m_summary->config.capabilities & kCaption) m_caption->modelReady(QString::fromStdString(m_summary->path));
        m_mechanisms->setModel(m_summary);
        m_intervene->setModel(m_summary);
        m_lens->setModel(m_summary);
        m_compare->setModel(m_summary);
        m_atlas->setModel(m_summary);
        pruningTab(m_tabs)->setModel(m_summary);
        setTwoSided(m_summary->config.kind == ModelKind::EncoderDecoder);
        fillAttentionKinds(m_kindBox, hasSelfAttention(m_summary->config));
        if (!m_input->text().isEmpty()) m_inputTimer->start();
    });
    connect(m_controller, &EngineController::tokenized, this,
        [this](TokensPtr tokens, bool target) { (target ? m_targetChips : m_chips)->setTokens(*tokens); });
    connect(m_controller, &EngineController::runReady, this, &MainWindow::showRun);
    connect(m_controller, &EngineController::failed, this, &MainWindow::showError);
    connect(m_controller, &EngineController::backendChanged, this, &MainWindow::showBackend);
    connect(m_controller, &EngineController::backendNotice, m_status, &QLabel::setText);
    connect(m_controller, &EngineController::cancelled, this, [this] { m_status->setText(tr("Cancelled")); });
    connect(m_controller, &EngineController::busyChanged, this, [this](bool busy) {
        m_progress->setVisible(busy);
        m_cancelButton->setEnabled(busy);
        if (busy) m_progress->setRange(0, 0);
    });
    connect(m_controller, &EngineController::statsProgress, this, [this](int done, int total) {
        // A long input's heads are summarized after its run: the grid and the statistics fill in a layer at a time.
        const int heads = m_snapshot ? static_cast<int>(m_snapshot->numHeads()) : 1;
        if (done % heads != 0 && done != total) return;
        m_grid->setSnapshot(m_snapshot);
        m_stats->setSnapshot(m_snapshot);
        m_status->setText(done == total ? tr("Head statistics ready") : tr("Head statistics: %1 of %2 heads").arg(done).arg(total));
    });
    connect(m_controller, &EngineController::progress, this, [this](int step, int total) {
        m_progress->setRange(0, total);
        m_progress->setValue(step);
    });

    connect(m_decode, &DecodePanel::headSelected, this, &MainWindow::setCurrentHead);
    connect(m_decode, &DecodePanel::positionsShown, this, [this] {
        if (m_tabs->currentWidget() == m_decode) addressRangeBar(*m_rangeBar, true, *m_decode, m_link, m_snapshot);
    });
    connect(m_caption, &CaptionPanel::errorShown, this, &MainWindow::showError);
    connect(m_caption, &CaptionPanel::captionShown, this, &MainWindow::clearError);
    connect(m_vision, &VisionView::errorShown, this, &MainWindow::showError);
    connect(m_vision, &VisionView::resultShown, this, &MainWindow::clearError);
    connect(m_vision->controller(), &VisionController::modelOpened, this, [this](const QString& description) {
        clearError();
        pruningTab(m_tabs)->setImageModel(m_vision->controller()->modelPath());
        m_info->setPlainText(description);
        m_status->setText(tr("Opened a vision model: open an image (button or drop)"));
    });
    connect(m_vision->controller(), &VisionController::resultReady, this, [this](VisionResultPtr result) {
        if (result) m_mechanisms->setImageModel(m_vision->controller()->modelPath(), result); // its heads, that image
        if (result) pruningTab(m_tabs)->setImage(QString::fromStdString(result->source));
        if (!result || result->topClasses.empty()) return;
        const ClassScore& best = result->topClasses.front();
        m_status->setText(tr("%1: %2 (p = %3)")
                              .arg(QFileInfo(QString::fromStdString(result->source)).fileName(),
                                  QString::fromStdString(best.label))
                              .arg(best.probability, 0, 'f', 3));
    });
    connect(m_grid, &HeadGridView::headActivated, this, [this](qint64 l, qint64 h) {
        setCurrentHead(l, h);
        m_tabs->setCurrentWidget(m_heatmap);
    });
    connect(m_grid, &HeadGridView::headMenuRequested, this, [this](qint64 l, qint64 h, const QPoint& at) {
        setCurrentHead(l, h);
        QMenu* menu = m_intervene->headMenu(l, h, this);
        // An ablation chosen here is shown at once: the diff is on the Intervene tab.
        connect(menu, &QMenu::triggered, this, [this] { m_tabs->setCurrentWidget(m_intervene); });
        menu->popup(at);
    });
    connect(m_decode, &DecodePanel::lensRequested, this, [this](const std::vector<TokenChip>& tokens) {
        m_lens->setTokens(tokens, tr("the Decode tab"));
        m_tabs->setCurrentWidget(m_lens);
    });
    connect(m_intervene, &InterventionPanel::ablationsChanged, this, [this] { m_grid->setMarks(m_intervene->marks()); });
    // A head the Mechanisms tab's entropy map flags, removed on the Intervene tab: what it costs on this input.
    const auto ablateOnInterveneTab = [this](qint64 l, qint64 h) {
        setCurrentHead(l, h);
        m_intervene->addAblation({ { { l, h } }, AblationMode::Zero, 0.0f });
        m_tabs->setCurrentWidget(m_intervene);
    };
    connect(m_mechanisms->entropyPage(), &EntropyPage::ablateRequested, this, ablateOnInterveneTab);
    // Entropy only flags candidates; the Pruning tab measures what removing each head costs.
    connect(m_mechanisms->entropyPage(), &EntropyPage::pruningRequested, this,
        [this, pruning] { m_tabs->setCurrentWidget(pruning); });
    connect(pruning, &PruningPanel::ablateRequested, this, ablateOnInterveneTab);
    connect(pruning, &PruningPanel::headSelected, this, [this](qint64 l, qint64 h) { setCurrentHead(l, h); });
    connect(m_atlas, &AtlasPanel::headActivated, this, [this](qint64 l, qint64 h) {
        setCurrentHead(l, h);
        m_tabs->setCurrentWidget(m_heatmap);
    });
    connect(m_stats, &StatsView::headActivated, this, [this](qint64 l, qint64 h) {
        setCurrentHead(l, h);
        m_tabs->setCurrentWidget(m_heatmap);
    });
    connect(m_model, &ModelView::headActivated, this, [this](qint64 l, qint64 h) {
        setCurrentHead(l, h);
        m_tabs->setCurrentIndex(m_tabs->indexOf(m_lines->parentWidget()->parentWidget())); // its scroll area
    });
    // Linked hover: the token under the mouse in any of these is highlighted in all of them; the heatmap's zoom, the
    // head view and the model view show the one token range (the toolbar's).
    m_chips->setLink(m_link, TokenChipsView::Side::Source);
    m_targetChips->setLink(m_link, TokenChipsView::Side::Target);
    m_heatmap->setLink(m_link);
    m_lines->setLink(m_link);
    m_model->setLink(m_link);
}

MainWindow::~MainWindow() = default;

void MainWindow::buildDocks() {
    m_info = new QPlainTextEdit;
    m_info->setObjectName("modelInfo");
    m_info->setReadOnly(true);
    m_info->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    // Lines wrap at the dock's width, a long path or backend anywhere: unwrapped, a 1024 px window hid the text
    // behind a horizontal scrollbar. The dock's minimum width keeps short "key: value" lines whole.
    m_info->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    m_info->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_info->setMinimumWidth(200);
    m_info->setPlaceholderText(tr("Open a model (File > Open model…, or drop a folder here) to see its description."));
    auto* infoDock = new QDockWidget(tr("Model"), this);
    infoDock->setObjectName("modelDock");
    infoDock->setWidget(m_info);
    addDockWidget(Qt::LeftDockWidgetArea, infoDock);
    resizeDocks({ infoDock }, { 210 }, Qt::Horizontal); // the text edit's own hint (256 px) crowded 1024 px windows

    m_input = new QLineEdit;
    m_input->setObjectName("inputText");
    // QLineEdit cuts text at 32,767 characters by default: a 32k-token --input-file ran its first ~8,400 tokens.
    m_input->setMaxLength(std::numeric_limits<int>::max());
    m_live = new QCheckBox(tr("&Live"));
    m_live->setChecked(true);
    m_live->setToolTip(tr("Run the model whenever the input changes"));
    m_input->setToolTip(tr("The model's input text; it is tokenized as you type, Enter runs it"));
    m_runButton = new QPushButton(tr("&Run"));
    m_cancelButton = new QPushButton(tr("&Cancel"));
    m_cancelButton->setEnabled(false);
    m_runButton->setToolTip(tr("Run the model on the input (Ctrl+Return)"));
    m_cancelButton->setToolTip(tr("Stop the run in progress (Esc)"));
    m_chips = new TokenChipsView;
    m_chips->setObjectName("sourceChips");
    // Encoder-decoders only: the teacher-forced target and which attention the views show.
    m_target = new QLineEdit;
    m_target->setObjectName("targetText");
    m_target->setMaxLength(std::numeric_limits<int>::max());
    m_target->setToolTip(tr("The decoder's side, teacher-forced after the source"));
    m_target->setPlaceholderText(tr("Target (decoder) text, teacher-forced: empty runs the start token alone"));
    m_kindBox = new QComboBox;
    m_kindBox->setObjectName("attentionKind");
    m_kindBox->setToolTip(tr("Which attention the views show: cross, encoder self or decoder self"));
    fillAttentionKinds(m_kindBox, true);
    m_targetChips = new TokenChipsView;
    m_targetChips->setObjectName("targetChips");
    auto* inputPanel = new QWidget;
    auto* row = new QHBoxLayout;
    row->addWidget(m_input, 1);
    row->addWidget(m_live);
    row->addWidget(m_runButton);
    row->addWidget(m_cancelButton);
    m_targetRow = new QWidget;
    auto* targetRow = new QHBoxLayout(m_targetRow);
    targetRow->setContentsMargins(0, 0, 0, 0);
    targetRow->addWidget(new QLabel(tr("Target:")));
    targetRow->addWidget(m_target, 1);
    targetRow->addWidget(new QLabel(tr("Show:")));
    targetRow->addWidget(m_kindBox);
    // Under the input, not in the status bar: later messages ("Head statistics ready") replaced it there, and a
    // long one was cut at the window's edge.
    m_inputNotice = new QLabel;
    m_inputNotice->setObjectName("inputNotice");
    m_inputNotice->setWordWrap(true);
    m_inputNotice->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_inputNotice->setStyleSheet(QStringLiteral("color: #9a4d00;"));
    m_inputNotice->hide();
    auto* inputLayout = new QVBoxLayout(inputPanel);
    inputLayout->addLayout(row);
    inputLayout->addWidget(m_inputNotice);
    // A long input's chips would push the views off the window: their area keeps a few rows and scrolls (five rows
    // took ~130 px of a 700 px window from every plot). The target's too: a long reference did the same.
    m_chipsArea = new ChipsArea(m_chips, kChipRows, kChipShare);
    m_chipsArea->setObjectName("sourceChipsArea");
    m_targetChipsArea = new ChipsArea(m_targetChips, kChipRows, kChipShare);
    m_targetChipsArea->setObjectName("targetChipsArea");
    inputLayout->addWidget(m_chipsArea);
    inputLayout->addWidget(m_targetRow);
    inputLayout->addWidget(m_targetChipsArea);
    setTwoSided(false);
    auto* inputDock = new QDockWidget(tr("Input"), this);
    inputDock->setObjectName("inputDock");
    inputDock->setWidget(inputPanel);
    addDockWidget(Qt::TopDockWidgetArea, inputDock);

    auto* headBar = addToolBar(tr("Head"));
    headBar->setObjectName("headToolBar");
    m_layerBox = new QSpinBox;
    m_layerBox->setObjectName("layerBox");
    m_layerBox->setPrefix(tr("layer "));
    m_layerBox->setToolTip(tr("The layer every view shows (Ctrl+[ / Ctrl+])"));
    m_headBox = new QSpinBox;
    m_headBox->setObjectName("headBox");
    m_headBox->setPrefix(tr("head "));
    m_headBox->setToolTip(tr("The head every view shows ([ / ])"));
    headBar->addWidget(m_layerBox);
    headBar->addWidget(m_headBox);
    m_rangeBar = new TokenRangeBar(m_link);
    headBar->addWidget(m_rangeBar);
    headBar->addAction(m_intervene->ablateAction()); // the selected head, with the Intervene tab's mode
    const auto apply = [this] { setCurrentHead(m_layerBox->value(), m_headBox->value()); };
    connect(m_layerBox, &QSpinBox::valueChanged, this, apply);
    connect(m_headBox, &QSpinBox::valueChanged, this, apply);
}

void MainWindow::openDemo(const DemoModel& demo) {
    FirstRunHint::showOnce(this, demo.title);
    // Models load on worker threads: the sample runs once its tab says the model is there.
    if (!demo.sampleImage.isEmpty()) {
        connect(m_vision->controller(), &VisionController::modelOpened, this,
            [this, image = demo.sampleImage] { m_vision->openImage(image); }, Qt::SingleShotConnection);
        return openModel(demo.path);
    }
    if (!demo.sampleReference.isEmpty()) {
        m_align->setSourceText(demo.sampleInput);
        m_align->setReferenceText(demo.sampleReference);
        connect(m_align, &AlignmentPanel::availableChanged, this,
            [this](bool available) {
                if (!available) return;
                m_tabs->setCurrentWidget(m_align);
                m_align->align();
            },
            Qt::SingleShotConnection);
    }
    openModel(demo.path);
    setInputText(demo.sampleInput);
    // Translation demos show the reference in the main views too: cross-attention needs a target to be readable.
    if (!demo.sampleReference.isEmpty()) setTargetText(demo.sampleReference);
    setCurrentHead(demo.showcaseLayer, demo.showcaseHead);
}

void MainWindow::buildMenus() {
    auto* file = menuBar()->addMenu(tr("&File"));
    auto* open = file->addAction(tr("&Open model folder…"), this, &MainWindow::chooseModelFolder);
    open->setShortcut(QKeySequence::Open);
    open->setObjectName("actionOpenModel");
    auto* openFile = file->addAction(tr("Open model &file…"), this, &MainWindow::chooseModelFile);
    openFile->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    file->addAction(tr("Open &workspace…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W), this,
            &MainWindow::chooseWorkspaceToOpen)
        ->setObjectName("actionOpenWorkspace");
    file->addAction(tr("&Save workspace…"), QKeySequence::Save, this, &MainWindow::chooseWorkspaceToSave)
        ->setObjectName("actionSaveWorkspace");
    m_recentMenu = file->addMenu(tr("Open &recent"));
    m_recentMenu->setObjectName("menuRecent");
    updateRecentMenu();
    auto* demos = file->addMenu(tr("&Demo models"));
    for (const DemoModel& demo : bundledDemoModels())
        demos->addAction(demo.title, this, [this, demo] { openDemo(demo); });
    demos->setEnabled(!demos->isEmpty());
    file->addSeparator();
    auto* quit = file->addAction(tr("&Quit"), qApp, &QApplication::quit);
    quit->setShortcut(QKeySequence::Quit);

    auto* view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("Next head"), QKeySequence(Qt::Key_BracketRight), this, [this] { stepHead(0, 1); });
    view->addAction(tr("Previous head"), QKeySequence(Qt::Key_BracketLeft), this, [this] { stepHead(0, -1); });
    view->addAction(tr("Next layer"), QKeySequence(Qt::CTRL | Qt::Key_BracketRight), this, [this] { stepHead(1, 0); });
    view->addAction(
        tr("Previous layer"), QKeySequence(Qt::CTRL | Qt::Key_BracketLeft), this, [this] { stepHead(-1, 0); });
    view->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());
    view->addSeparator();
    auto* backends = new BackendMenu(this);
    view->addMenu(backends);
    connect(backends, &BackendMenu::choiceChanged, m_controller, &EngineController::setBackend);
    m_controller->setBackend(backends->choice());

    auto* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(tr("&Run input"), QKeySequence(Qt::CTRL | Qt::Key_Return), this, &MainWindow::requestRun);
    run->addAction(tr("&Cancel"), QKeySequence(Qt::Key_Escape), m_controller, &EngineController::cancel)
        ->setObjectName("actionCancel");
    run->addSeparator();
    run->addActions({ m_intervene->ablateAction(), m_intervene->undoAction(), m_intervene->clearAction() });

    menuBar()->addMenu(new ExportMenu(this));
    menuBar()->addMenu(new HelpMenu(this, m_tabs));
}

void MainWindow::chooseModelFolder() {
    const QString path = QFileDialog::getExistingDirectory(this, tr("Open model folder"));
    if (!path.isEmpty()) openModel(path);
}

void MainWindow::chooseModelFile() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open model file"), QString(), tr("Models (*.safetensors *.gguf *.bin config.json);;All files (*)"));
    if (!path.isEmpty()) openModel(path);
}

void MainWindow::openModel(const QString& path) {
    m_status->setText(tr("Opening %1…").arg(path));
    setPlaceholders(tr("No attention yet: opening the model…"));
    m_inputNotice->hide(); // about the previous model's positions
    // No tab keeps showing or stepping the previous model: each empties now and opens the new one if it can.
    m_decode->closeModel();
    m_intervene->setModel(nullptr);
    m_lens->setModel(nullptr);
    m_compare->setModel(nullptr);
    m_atlas->setModel(nullptr);
    pruningTab(m_tabs)->setModel(nullptr);
    m_vision->closeModel();
    m_align->closeModel();
    m_mechanisms->setModel(nullptr); // synthetic input only until the new model (or image) offers heads
    // The model's description is read once here; which tabs open it follows from its family's capabilities.
    const std::optional<ModelConfig> probed = probedConfig(path);
    const uint32_t capabilities = probed ? probed->capabilities : 0;
    setVisionMode((capabilities & kClassify) != 0);
    if (m_vision->isEnabled()) {
        m_summary.reset();
        m_info->clear();
        setWindowTitle(tr("AttnScope — %1").arg(QFileInfo(path).fileName()));
        addRecent(path);
        m_controller->closeModel(); // the engine frees the text model before the image model loads
        return m_vision->controller()->openModel(path);
    }
    setCaptionMode((capabilities & kCaption) != 0);
    // Disabling the current tab would make Qt pick the next enabled one; Decode comes back once the model generates.
    m_reopenDecode = m_tabs->currentWidget() == m_decode;
    if (m_reopenDecode) m_tabs->setCurrentWidget(m_heatmap);
    m_tabs->setTabEnabled(m_tabs->indexOf(m_decode), false); // until the model says it generates
    m_tabs->setTabEnabled(m_tabs->indexOf(m_align), false);
    m_controller->loadModel(path);
    // After the load request: the engine opens the model once, and the Alignment tab's job then shares that copy.
    if ((capabilities & kTranslate) != 0 && !m_caption->isEnabled()) m_align->openModel(path);
    // An RNN seq2seq model's cross-attention is its alignment: the Alignment tab shows it first.
    if (probed && !hasSelfAttention(*probed)) {
        m_tabs->setTabEnabled(m_tabs->indexOf(m_align), true); // availableChanged(false) takes it back on failure
        m_tabs->setCurrentWidget(m_align);
    }
}

void MainWindow::setInputText(const QString& text) {
    m_input->setText(text);
    m_inputTimer->start();
}

void MainWindow::setTargetText(const QString& text) {
    m_target->setText(text);
    m_inputTimer->start();
}

void MainWindow::setAttentionKind(AttentionKind kind) {
    m_kindBox->setCurrentIndex(m_kindBox->findData(static_cast<int>(kind)));
}

QString MainWindow::inputText() const {
    return m_input->text();
}

QString MainWindow::targetText() const {
    return m_target->text();
}

AttentionKind MainWindow::attentionKind() const {
    return m_targetRow->isHidden() ? AttentionKind::Self : static_cast<AttentionKind>(m_kindBox->currentData().toInt());
}

void MainWindow::setTwoSided(bool twoSided) {
    m_targetRow->setVisible(twoSided);
    m_targetChipsArea->setVisible(twoSided);
    m_input->setPlaceholderText(twoSided ? tr("Source text; both sides are tokenized as you type (Enter runs)")
                                         : tr("Type an input; it is tokenized as you type (Enter runs)"));
    if (!twoSided) m_targetChips->setTokens({});
}

void MainWindow::requestRun() {
    if (!m_summary) return showError(tr("Open a model first (File > Open model)."));
    m_inputTimer->stop();
    m_controller->run(m_input->text(), m_targetRow->isHidden() ? QString() : m_target->text());
}

void MainWindow::showRun(RunPtr run) {
    m_run = std::move(run);
    m_chips->setTokens(m_run->source);
    m_targetChips->setTokens(m_run->target);
    m_router->setRun(m_run);
    m_tabs->setTabEnabled(m_tabs->indexOf(m_router), m_router->hasRouter());
    m_mechanisms->runChanged(m_run->source, m_run->target);
    m_intervene->setRun(m_run);
    m_lens->setRun(m_run);
    m_atlas->setRun(m_run);
    pruningTab(m_tabs)->setRun(m_run);
    const SnapshotPtr chosen = m_run->view(attentionKind());
    showSnapshot(chosen ? chosen : m_run->views.front().second);
    m_inputNotice->setText(QString::fromStdString(m_run->notice));
    m_inputNotice->setVisible(!m_run->notice.empty());
}

void MainWindow::showSnapshot(SnapshotPtr snapshot) {
    // Positions of another shape are other tokens: the range starts over from all of them.
    if (!m_snapshot || m_snapshot->numQueries() != snapshot->numQueries()
        || m_snapshot->numKeys() != snapshot->numKeys())
        m_link->setRange({});
    m_snapshot = std::move(snapshot);
    clearError();
    {
        const QSignalBlocker blockLayer(m_layerBox), blockHead(m_headBox);
        m_layerBox->setRange(0, static_cast<int>(m_snapshot->numLayers() - 1));
        m_headBox->setRange(0, static_cast<int>(m_snapshot->numHeads() - 1));
    }
    m_heatmap->setSnapshot(m_snapshot);
    m_grid->setSnapshot(m_snapshot);
    m_lines->setSnapshot(m_snapshot);
    m_model->setSnapshot(m_snapshot);
    m_link->setCross(m_snapshot->isCross());
    addressRangeBar(*m_rangeBar, m_tabs->currentWidget() == m_decode, *m_decode, m_link, m_snapshot);
    m_stats->setSnapshot(m_snapshot);
    m_compare->setSnapshot(m_snapshot);
    setCurrentHead(m_layerBox->value(), m_headBox->value());
    const QString tokens = m_snapshot->isCross()
        ? tr("%1 target x %2 source tokens").arg(m_snapshot->numQueries()).arg(m_snapshot->numKeys())
        : tr("%1 tokens").arg(m_snapshot->numKeys());
    m_status->setText(
        tr("%1, %2 layers x %3 heads").arg(tokens).arg(m_snapshot->numLayers()).arg(m_snapshot->numHeads()));
    emit snapshotShown();
}

void MainWindow::setCurrentHead(int64_t layer, int64_t head) {
    if (m_snapshot) {
        layer = std::clamp<int64_t>(layer, 0, m_snapshot->numLayers() - 1);
        head = std::clamp<int64_t>(head, 0, m_snapshot->numHeads() - 1);
    }
    {
        const QSignalBlocker blockLayer(m_layerBox), blockHead(m_headBox);
        m_layerBox->setValue(static_cast<int>(layer));
        m_headBox->setValue(static_cast<int>(head));
    }
    // One selection: every view that shows a single head shows this one.
    m_heatmap->setHead(layer, head);
    m_mechanisms->setHead(layer, head);
    m_grid->setCurrent(layer, head);
    m_lines->setLayer(layer);
    m_lines->setHeads({ head });
    m_model->setCurrent(layer, head);
    m_decode->setHead(layer, head);
    m_intervene->setHead(layer, head);
}

void MainWindow::stepHead(int dLayer, int dHead) {
    setCurrentHead(m_layerBox->value() + dLayer, m_headBox->value() + dHead);
}

QString MainWindow::infoText() const {
    return m_summary ? QString::fromStdString(m_summary->text()) : QString();
}

void MainWindow::showBackend(const QString& description, const QString& notice) {
    if (!notice.isEmpty()) m_status->setText(notice);
    if (!m_summary) return;
    auto summary = std::make_shared<ModelSummary>(*m_summary);
    summary->backend = description.toStdString();
    m_summary = std::move(summary);
    m_info->setPlainText(infoText());
    if (!m_input->text().isEmpty()) requestRun(); // the views show the new backend's numbers
}

void MainWindow::showError(const QString& message) {
    m_lastError = message;
    // Views that still show an earlier run keep it; empty ones say why they stay empty.
    setPlaceholders(m_summary ? tr("No attention: this input did not run (the error is above)")
                              : tr("No attention: no model is open (the error is above)"));
    m_errorBanner->setText(tr("Error: %1").arg(message));
    m_errorBanner->show();
    m_status->setText(tr("Error"));
    emit errorShown(message);
}

void MainWindow::setPlaceholders(const QString& text)
{
    m_heatmap->setPlaceholder(text);
    m_grid->setPlaceholder(text);
    m_lines->setPlaceholder(text);
    m_model->setPlaceholder(text);
}

void MainWindow::clearError() {
    m_lastError.clear();
    m_errorBanner->hide();
}

void MainWindow::openPath(const QString& path) {
    if (!isWorkspacePath(path)) return openModel(path);
    try {
        m_workspaces->open(path);
        addRecent(path);
    } catch (const std::exception& e) {
        showError(QString::fromStdString(e.what()));
    }
}

void MainWindow::chooseWorkspaceToOpen() {
    const QString path
        = QFileDialog::getOpenFileName(this, tr("Open workspace"), QString(), tr("AttnScope workspace (*.attnscope)"));
    if (!path.isEmpty()) openPath(path);
}

void MainWindow::chooseWorkspaceToSave() {
    QString path
        = QFileDialog::getSaveFileName(this, tr("Save workspace"), QString(), tr("AttnScope workspace (*.attnscope)"));
    if (path.isEmpty()) return;
    if (!isWorkspacePath(path)) path += ".attnscope";
    try {
        m_workspaces->save(path);
        addRecent(path);
        m_status->setText(tr("Saved the workspace to %1").arg(path));
    } catch (const std::exception& e) {
        showError(QString::fromStdString(e.what()));
    }
}

void MainWindow::offerLastWorkspace() {
    const QString last = QSettings().value("workspace/last").toString();
    if (last.isEmpty() || !QFileInfo(last).isFile()) return;
    m_status->setText(tr("<a href=\"reopen\">Reopen the last workspace</a> (%1)").arg(QFileInfo(last).fileName().toHtmlEscaped()));
    connect(m_status, &QLabel::linkActivated, this, [this, last] { openPath(last); }, Qt::SingleShotConnection);
}

void MainWindow::addRecent(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue(kRecentKey, recent);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(kRecentKey).toStringList();
    for (const QString& path : recent)
        m_recentMenu->addAction(path, this, [this, path] { openPath(path); });
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::resizeEvent(QResizeEvent* event)
{
    QMainWindow::resizeEvent(event);
    for (ChipsArea* area : { m_chipsArea, m_targetChipsArea })
        area->setWindowHeight(height());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls() && event->mimeData()->urls().first().isLocalFile()) event->acceptProposedAction();
}

void MainWindow::setVisionMode(bool vision) {
    // The Mechanisms tab reads an image model's heads too. Decode, Caption, Router and Alignment follow the model and
    // its run (they enable themselves when those arrive), so leaving image mode must not enable them: a Router tab
    // enabled for a dense model took the user there when the tab they were on was disabled during the next open.
    const QWidget* const ownRule[] = { m_decode, m_caption, m_router, m_align };
    for (int i = 0; i < m_tabs->count(); ++i) {
        const QWidget* tab = m_tabs->widget(i);
        // The Pruning tab prunes an image classifier's heads too.
        const bool on = tab == m_mechanisms || tab == pruningTab(m_tabs) || (tab == m_vision) == vision;
        if (!on || std::find(std::begin(ownRule), std::end(ownRule), tab) == std::end(ownRule))
            m_tabs->setTabEnabled(i, on);
    }
    // An image classifier has no text input: on the Pruning tab too the Input dock would only say "type an input".
    pruningTab(m_tabs)->setProperty(
        "collapsesDocks", vision ? QStringList { "inputDock", "modelDock" } : QStringList { "modelDock" });
    m_vision->setEnabled(vision);
    if (vision) m_tabs->setCurrentWidget(m_vision);
    else if (m_tabs->currentWidget() == m_vision) m_tabs->setCurrentWidget(m_heatmap);
    fitDocksToTab(); // the current tab may be the Pruning tab, whose docks just changed
    // The Vision tab selects its head itself (including the mean of heads): the toolbar would be a second, idle
    // selector there.
    if (auto* headBar = findChild<QToolBar*>("headToolBar")) headBar->setVisible(!vision);
}

void MainWindow::fitDocksToTab() {
    // The new tab's docks go first, the previous tab's come back last, once the new tab's minimum is in place: each
    // shown or hidden dock lays the window out at once, and a dock shown beside a minimum that was not yet the new
    // tab's grew the window past 1024 px (the Model dock beside the Decode tab's 979 px, once even after the layout
    // test's resize).
    const QWidget* tab = m_tabs->currentWidget();
    std::vector<std::pair<QDockWidget*, bool>> previous = std::move(m_collapsedDocks);
    m_collapsedDocks.clear();
    for (const QString& name : tab ? tab->property("collapsesDocks").toStringList() : QStringList())
        if (auto* dock = findChild<QDockWidget*>(name)) {
            // A dock the previous tab hid too keeps what it was before that tab.
            const auto kept
                = std::find_if(previous.begin(), previous.end(), [dock](const auto& p) { return p.first == dock; });
            const bool shown = kept != previous.end()
                ? kept->second
                : !dock->isHidden(); // isHidden: also right before the window shows
            if (kept != previous.end()) previous.erase(kept);
            m_collapsedDocks.emplace_back(dock, shown);
            dock->hide();
        }
    // Only the current tab's minimum size counts: QStackedWidget otherwise asks for the widest of all tabs, and
    // the Model dock beside the widest one pushed the window past 1024 px.
    for (int i = 0; i < m_tabs->count(); ++i)
        m_tabs->widget(i)->setSizePolicy(i == m_tabs->currentIndex() ? QSizePolicy::Preferred : QSizePolicy::Ignored,
            i == m_tabs->currentIndex() ? QSizePolicy::Preferred : QSizePolicy::Ignored);
    // The policies reach the tab widget's minimum through posted layout requests: delivered now, before a dock shows.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    for (const auto& [dock, shown] : previous)
        dock->setVisible(shown);
    addressRangeBar(*m_rangeBar, tab && tab == m_decode, *m_decode, m_link, m_snapshot);
    m_rangeBar->setApplies(
        tab && (tab == m_heatmap || tab == m_decode || tab->isAncestorOf(m_lines) || tab->isAncestorOf(m_model)));
}

void MainWindow::setCaptionMode(bool caption) {
    for (int i = 0; i < m_tabs->count(); ++i)
        if (caption || m_tabs->widget(i) == m_caption)
            m_tabs->setTabEnabled(i, (m_tabs->widget(i) == m_caption) == caption);
    m_caption->setEnabled(caption);
    if (caption) m_tabs->setCurrentWidget(m_caption);
    else if (m_tabs->currentWidget() == m_caption) m_tabs->setCurrentWidget(m_heatmap);
    // Like the Vision tab, the Caption tab selects its own head.
    if (auto* headBar = findChild<QToolBar*>("headToolBar")) headBar->setVisible(!caption && !m_vision->isEnabled());
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QString path = event->mimeData()->urls().first().toLocalFile();
    // With a vision model open, a dropped image is an input, not a model.
    if (m_vision->isEnabled() && !QImageReader::imageFormat(path).isEmpty())
        m_vision->openImage(path);
    else if (m_caption->isEnabled() && !QImageReader::imageFormat(path).isEmpty())
        m_caption->openImage(path);
    else
        openPath(path);
    event->acceptProposedAction();
}

} // namespace attn::ui
