// SPDX-License-Identifier: MIT
// Layout at the sizes people use (1024x700, 1280x800, 2560x1440), every tab, on stories260K with a long input:
// the window fits, plots keep a readable size, no two buttons overlap, no visible widget is squeezed below its
// minimum size hint; the Model dock's text wraps instead of scrolling sideways, and so do the logit-lens tables (the
// Decode tab's beside its plots, the Logit lens tab's) once they show a readout, every top token readable in its cell.
// The demos cover the Vision and Alignment tabs, the hf-tiny Mixtral (with a word-level tokenizer this test writes)
// the Router tab.
// AS_LAYOUT_SCREENSHOTS=DIR saves one PNG per size and tab for a person to look at. LayoutScale runs the 1024x700 and
// 1280x800 cases again in a child process at QT_SCALE_FACTOR=2 (HiDPI screens): the same geometry must hold.
#include "align/alignment_panel.h"
#include "atlas/atlas_panel.h"
#include "atlas/cluster_matrix_view.h"
#include "caption/caption_panel.h"
#include "decode/decode_controller.h"
#include "decode/decode_panel.h"
#include "demo_models.h"
#include "intervention/decode_lens_view.h"
#include "intervention/intervention_panel.h"
#include "intervention/logit_lens_panel.h"
#include "intervention/topk_table.h"
#include "main_window.h"
#include "mechanisms/line_plot.h"
#include "mechanisms/mechanisms_panel.h"
#include "model/attention_snapshot.h"
#include "plots/heatmap_view.h"
#include "support/shared_data.h"
#include "vision/class_bar_chart.h"
#include "vision/patch_map_view.h"
#include "vision/vision_view.h"
#include "widgets/noted_view.h"
#include "widgets/token_chips_view.h"

#include <QAbstractButton>
#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QFontMetrics>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QResizeEvent>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QToolButton>

#include <qcustomplot.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string_view>

namespace attn::ui {
namespace {

// Below this a plot's axis titles and tick labels no longer fit (measured on the heatmap and the decode plots).
constexpr int kMinPlotWidth = 220;
constexpr int kMinPlotHeight = 140;
// The least height the data of a plot keeps between its axes (a few rows of cells, a readable curve).
constexpr int kMinDataHeight = 60;
// A curve whose values matter (Intervene's KL per position) keeps this much between its axes.
constexpr int kMinCurveHeight = 95;
// Intervene's difference map keeps at least this much of cells: at 1024x700 it had 51 x 86 px beside the all-heads
// map, a sliver where the pattern of a long input's change could not be read. (The height is what a 700 px window
// leaves under the Input dock and the KL curve.)
constexpr int kMinDifferenceCellsWidth = 150;
constexpr int kMinDifferenceCellsHeight = 100;
// The Router tab's expert load keeps this much between its axes: with 160 px for the whole plot its bars had ~80 px at
// 1024x700.
constexpr int kMinRouterBarsHeight = 160;
// The rows of a long input's chips the Input dock shows before they scroll: five took ~130 px of a 700 px window, so
// two there, and on a taller window as many as fit in 8 % of its height.
constexpr int kChipRows = 2;
constexpr double kChipShare = 0.08;

const char* kLongInput = "Mia and Ben went to the beach. Ben found a red kite. He gave it to Mia. She was happy. Ben "
                         "said the magic words: gold wind frog lamp. Then he said again: gold wind frog lamp. The sun "
                         "was warm and the sea was blue, and they played until the sky turned orange.";

QString tabName(const QTabWidget& tabs, int i)
{
    return tabs.tabText(i).remove('&').replace(' ', '-').toLower();
}

void checkTab(QWidget& tab, const std::string& where)
{
    for (QCustomPlot* plot : tab.findChildren<QCustomPlot*>()) {
        if (!plot->isVisibleTo(&tab)) continue;
        EXPECT_GE(plot->width(), kMinPlotWidth) << where << " plot " << plot->objectName().toStdString();
        EXPECT_GE(plot->height(), kMinPlotHeight) << where << " plot " << plot->objectName().toStdString();
        // The data itself, inside the axes, labels and title: a plot of the minimum size whose labels took it all
        // showed its cells as a thin strip.
        // Titles are whole: a centred title wider than its cell (the axes' column, without the colour bar) is cut at
        // both ends ("H0 ablated − unmodi").
        for (QCPLayoutElement* element : plot->plotLayout()->elements(true))
            if (const auto* text = qobject_cast<QCPTextElement*>(element); text && text->visible()) {
                for (const QString& line : text->text().split('\n')) {
                    EXPECT_LE(QFontMetrics(text->font()).horizontalAdvance(line), text->outerRect().width())
                        << where << " plot " << plot->objectName().toStdString() << ": the title '"
                        << line.toStdString() << "' is cut";
                }
            }
        if (!plot->axisRect() || !plot->axisRect()->visible()) continue;
        // Positions are whole numbers: an empty decode plot's axis read "-0.4 -0.2 0 0.2 0.4".
        if (plot->xAxis->visible() && plot->xAxis->label().contains("position")) {
            for (const double tick : plot->xAxis->tickVector())
                EXPECT_EQ(tick, std::round(tick))
                    << where << " plot " << plot->objectName().toStdString() << ": a tick between positions";
        }
        // Vertical tick labels one above the other, not run together (Compare's JS axis had 7 in 70 px).
        for (const QCPAxis* axis : plot->axisRect()->axes(QCPAxis::atLeft | QCPAxis::atRight)) {
            if (!axis->visible() || !axis->tickLabels() || axis->tickVector().size() < 2) continue;
            const QVector<double> ticks = axis->tickVector();
            const int lineHeight = QFontMetrics(axis->tickLabelFont()).height();
            for (qsizetype t = 1; t < ticks.size(); ++t) {
                EXPECT_GE(std::abs(axis->coordToPixel(ticks[t]) - axis->coordToPixel(ticks[t - 1])), lineHeight)
                    << where << " plot " << plot->objectName().toStdString() << ": tick labels " << ticks[t - 1]
                    << " and " << ticks[t] << " overlap";
            }
        }
        EXPECT_GE(plot->axisRect()->rect().height(), kMinDataHeight)
            << where << " plot " << plot->objectName().toStdString() << ": data area";
    }
    // A heatmap's find box shows its whole placeholder beside its clear button: a 16 px minimum hid from the check
    // below that it was a sliver beside the Decode tab's plots at 1024 px.
    for (const QLineEdit* find : tab.findChildren<QLineEdit*>("heatmapFind")) {
        if (!find->isVisibleTo(&tab)) continue;
        const auto* clear = find->findChild<QToolButton*>();
        ASSERT_NE(clear, nullptr) << where << ": the find box has no clear button";
        const int need = QFontMetrics(find->font()).horizontalAdvance(find->placeholderText()) + clear->width()
            + 2 * find->style()->pixelMetric(QStyle::PM_DefaultFrameWidth, nullptr, find);
        EXPECT_GE(find->width(), need) << where << ": the find box is " << find->width() << " px wide";
    }
    std::vector<QAbstractButton*> buttons;
    for (QAbstractButton* b : tab.findChildren<QAbstractButton*>())
        if (b->isVisibleTo(&tab) && b->width() > 0) buttons.push_back(b);
    for (size_t a = 0; a < buttons.size(); ++a)
        for (size_t b = a + 1; b < buttons.size(); ++b) {
            const QRect ra(buttons[a]->mapTo(&tab, QPoint()), buttons[a]->size());
            const QRect rb(buttons[b]->mapTo(&tab, QPoint()), buttons[b]->size());
            EXPECT_FALSE(ra.intersects(rb)) << where << ": '" << buttons[a]->text().toStdString() << "' overlaps '"
                                            << buttons[b]->text().toStdString() << "'";
        }
    for (QWidget* w : tab.findChildren<QWidget*>()) {
        // Qt's own parts (a spin box's line edit, header views) are sized by their owners, not by their hints.
        if (!w->isVisibleTo(&tab) || qobject_cast<QCustomPlot*>(w) || w->objectName().startsWith("qt_")
            || w->inherits("QHeaderView"))
            continue;
        // What a layout grants a widget: its explicit minimum where one is set, else its hint (qSmartMinSize).
        QSize hint = w->minimumSizeHint();
        if (!hint.isValid() || w->inherits("QScrollBar")) continue;
        if (w->minimumWidth() > 0) hint.setWidth(w->minimumWidth());
        if (w->minimumHeight() > 0) hint.setHeight(w->minimumHeight());
        EXPECT_GE(w->width(), hint.width()) << where << ": " << w->metaObject()->className() << " '"
                                            << w->objectName().toStdString() << "' narrower than its minimum";
        EXPECT_GE(w->height(), hint.height()) << where << ": " << w->metaObject()->className() << " '"
                                              << w->objectName().toStdString() << "' lower than its minimum";
    }
}

/// Every cell of `column` shows its whole text: laid out as the item view draws it (wrapped at the column's width
/// inside its text margins where the table wraps, else on one line), it is no wider than the column and no taller than
/// its row. (A lens table without rows is a model without a lens; checkEveryTab waits for the rows of those that have
/// one.)
void expectCellsRead(const QTableWidget& table, int column, const std::string& where)
{
    const int margin = table.style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, &table) + 1;
    const int width = table.columnWidth(column) - 2 * margin;
    const int flags = table.wordWrap() ? Qt::TextWordWrap : Qt::TextSingleLine;
    for (int r = 0; r < table.rowCount(); ++r) {
        const QString text = table.item(r, column)->text();
        ASSERT_FALSE(text.isEmpty()) << where << " row " << r;
        const QRect need = QFontMetrics(table.font()).boundingRect(QRect(0, 0, width, 1 << 20), flags, text);
        EXPECT_LE(need.width(), width) << where << " row " << r << ": '" << text.toStdString() << "' is cut";
        EXPECT_LE(need.height(), table.rowHeight(r)) << where << " row " << r << ": '" << text.toStdString()
                                                    << "' is taller than its row";
    }
}

/// A lens table shows every readout (the embeddings and each layer; these models have at most six) without a
/// vertical scroll, and every column's header in full: at 1024 px the Decode tab's table scrolled and its header read
/// "top next toker".
void expectLensTableReadsWhole(const QTableWidget& table, const std::string& where)
{
    EXPECT_FALSE(table.verticalScrollBar()->isVisible()) << where << ": scrolls to show its " << table.rowCount()
                                                         << " rows";
    const QHeaderView& header = *table.horizontalHeader();
    const int margin = table.style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, &header);
    for (int c = 0; c < table.columnCount(); ++c) {
        const QString text = table.horizontalHeaderItem(c)->text();
        EXPECT_LE(QFontMetrics(header.font()).horizontalAdvance(text) + 2 * margin, table.columnWidth(c))
            << where << ": the header '" << text.toStdString() << "' is cut";
    }
}

/// Intervene's KL curve has room to read between its axes, and its axis starts at 0: at 1024x700 the plot had 65 px
/// for a tick every 12 px, and an unmodified run's zeros sat in the middle of -3 .. 3.
void expectKlPlotReads(const InterventionPanel& panel, const std::string& where)
{
    const QCustomPlot& plot = *panel.klPlot()->plot();
    EXPECT_GE(plot.axisRect()->rect().height(), kMinCurveHeight) << where << ": the KL curve's data area";
    EXPECT_EQ(plot.yAxis->range().lower, 0.0) << where << ": KL is never negative";
    if (!panel.result()) return;
    const Tensor& kl = panel.result()->diff.kl;
    const float largest = *std::max_element(kl.storage().begin(), kl.storage().end());
    EXPECT_GE(plot.yAxis->range().upper, largest) << where << ": the largest KL is off the plot";
}

/// Every image map's title is shown whole at its width: wrapped, not elided. At 1024 px the Vision tab's four maps
/// side by side showed "Attention flow (mean of heads) into [C…".
void expectMapTitlesRead(QWidget& tab, const std::string& where)
{
    for (const PatchMapView* map : tab.findChildren<PatchMapView*>()) {
        if (!map->isVisibleTo(&tab) || map->title().isEmpty()) continue;
        const QStringList lines = map->titleLines();
        EXPECT_EQ(lines.join(' ').toStdString(), map->title().toStdString()) << where << ": a map's title is cut";
        for (const QString& line : lines)
            EXPECT_LE(map->fontMetrics().horizontalAdvance(line), map->width())
                << where << ": the title line '" << line.toStdString() << "' is wider than its map";
    }
}

/// The rows the Input dock's chip areas show of a long input in a window `height` px high before they scroll.
int chipRowsLimit(const TokenChipsView& chips, int height)
{
    int rows = kChipRows;
    while (chips.rowsHeight(rows + 1) <= kChipShare * height)
        ++rows;
    return rows;
}

/// The Input dock's chip areas keep at most chipRowsLimit() rows of a long input, the rest scrolls: every tab's views
/// get the height (with five rows Compare's maps kept ~85 px of cells at 1024x700). An input that needs more rows
/// shows all of the limit: a 1440 px window showed two rows of a long input, as a 700 px one does.
void expectChipsBounded(MainWindow& window, const std::string& where)
{
    for (const char* name : { "sourceChipsArea", "targetChipsArea" }) {
        const auto* area = window.findChild<QScrollArea*>(name);
        if (!area || !area->isVisible()) continue;
        const auto* chips = qobject_cast<const TokenChipsView*>(area->widget());
        ASSERT_NE(chips, nullptr) << where << " " << name;
        const int rows = chipRowsLimit(*chips, window.height());
        EXPECT_LE(area->height(), chips->rowsHeight(rows) + 2 * area->frameWidth())
            << where << ": " << name << " is " << area->height() << " px high";
        if (chips->heightForWidth(area->viewport()->width()) > chips->rowsHeight(rows)) {
            EXPECT_EQ(area->height(), chips->rowsHeight(rows) + 2 * area->frameWidth())
                << where << ": " << name << " shows fewer than " << rows << " rows of a longer input";
        }
    }
}

/// Views that must use their room: the Statistics table does not scroll sideways, the
/// head atlas's matrix leaves no blank beside its square (~200 px at 1280), and a tab with nothing to show for this
/// model says why in the views' place instead of drawing empty axes.
void expectViewsUseTheirRoom(QWidget& tab, const std::string& where)
{
    if (const auto* stats = tab.findChild<QTableView*>("statsTable"); stats && stats->isVisibleTo(&tab)) {
        EXPECT_FALSE(stats->horizontalScrollBar()->isVisible()) << where << ": the statistics scroll sideways";
    }
    if (const auto* matrix = tab.findChild<ClusterMatrixView*>(); matrix && matrix->isVisibleTo(&tab)) {
        EXPECT_LE(matrix->width() - matrix->matrixRect().right(), 4.0)
            << where << ": blank right of the cluster matrix (" << matrix->width() << " x " << matrix->height() << ")";
    }
    if (const auto* note = tab.findChild<QLabel*>("viewNote"); note && note->isVisibleTo(&tab)) {
        EXPECT_TRUE(note->text().contains("decoder-only")) << where << ": " << note->text().toStdString();
        for (const QCustomPlot* plot : tab.findChildren<QCustomPlot*>())
            EXPECT_FALSE(plot->isVisibleTo(&tab)) << where << ": an empty plot beside the note";
    }
}

/// The widest the watched window has been made since the last reset: a window laid out past the screen stays that
/// wide when its minimum shrinks back.
class WidthWatch : public QObject {
public:
    explicit WidthWatch(QWidget* window) { window->installEventFilter(this); }
    int widest = 0;

protected:
    bool eventFilter(QObject*, QEvent* event) override
    {
        if (event->type() == QEvent::Resize)
            widest = std::max(widest, static_cast<QResizeEvent*>(event)->size().width());
        return false;
    }
};

/// Visits every enabled tab of `window`, checking and (with AS_LAYOUT_SCREENSHOTS) saving each.
void checkEveryTab(MainWindow& window, const QString& model)
{
    const QString dir = qEnvironmentVariable("AS_LAYOUT_SCREENSHOTS");
    QTabWidget* tabs = window.tabs();
    WidthWatch watch(&window);
    for (int i = 0; i < tabs->count(); ++i) {
        if (!tabs->isTabEnabled(i)) continue;
        tabs->setCurrentIndex(i);
        // The Mechanisms tab computes once shown: its maps (three across) are what must fit, not its placeholder.
        if (const auto* mechanisms = qobject_cast<MechanismsPanel*>(tabs->widget(i)))
            QTRY_VERIFY_WITH_TIMEOUT(mechanisms->result() != nullptr, 60000);
        // The head atlas maps a decoder's input once shown: its grid and matrix are what must fit.
        if (const auto* atlas = qobject_cast<AtlasPanel*>(tabs->widget(i));
            atlas && atlas->findChild<QPushButton*>("mapHeads")->isEnabled())
            QTRY_VERIFY_WITH_TIMEOUT(atlas->map() != nullptr, 60000);
        // The lens tables fill once shown: their rows of tokens are what must fit.
        if (const auto* decode = qobject_cast<DecodePanel*>(tabs->widget(i));
            decode && !decode->controller()->steps().empty())
            QTRY_VERIFY_WITH_TIMEOUT(decode->lensView()->table()->rowCount() > 0, 60000);
        if (const auto* lens = qobject_cast<LogitLensPanel*>(tabs->widget(i)); lens && !lens->tokens().empty())
            QTRY_VERIFY_WITH_TIMEOUT(lens->table()->rowCount() > 0, 60000);
        // Intervene with one head ablated, the tallest state of the tab (its continuation takes two lines): the KL
        // curve and both maps have data to place.
        if (auto* intervene = qobject_cast<InterventionPanel*>(tabs->widget(i));
            intervene && intervene->ablateAction()->isEnabled()) {
            QTRY_VERIFY_WITH_TIMEOUT(intervene->result() != nullptr, 60000);
            intervene->ablateSelected();
            QTRY_VERIFY_WITH_TIMEOUT(intervene->result() && !intervene->result()->ablations.empty()
                    && intervene->differenceView()->snapshot(),
                60000);
        }
        // The tab's docks and layouts did not lay the window out wider than asked, not even for a moment: a window
        // manager would let it grow off a 1024 px screen, and it stays that wide when its minimum shrinks back (the
        // Model dock came back beside the previous tab's minimum). The resize below would hide that growth.
        EXPECT_LE(watch.widest, window.property("requestedSize").toSize().width())
            << "showing tab " << tabName(*tabs, i).toStdString() << " grew the window";
        const QSize requested = window.property("requestedSize").toSize();
        QTest::qWait(50); // the new tab's layout requests first
        window.resize(requested);
        QTest::qWait(100); // layouts and coalesced redraws settle
        const QString scale
            = window.devicePixelRatio() > 1 ? QString("@%1x").arg(window.devicePixelRatio()) : QString();
        const QString name = QString("%1x%2%3-%4-%5")
                                 .arg(requested.width())
                                 .arg(requested.height())
                                 .arg(scale, model, tabName(*tabs, i));
        EXPECT_LE(window.minimumSizeHint().width(), requested.width()) << name.toStdString() << ": too wide";
        EXPECT_LE(window.minimumSizeHint().height(), requested.height()) << name.toStdString() << ": too tall";
        EXPECT_EQ(window.width(), requested.width())
            << name.toStdString() << ": the window grew to " << window.width() << " (its minimum size hint is "
            << window.minimumSizeHint().width() << ")";
        checkTab(*tabs->widget(i), name.toStdString());
        expectChipsBounded(window, name.toStdString());
        expectViewsUseTheirRoom(*tabs->widget(i), name.toStdString());
        expectMapTitlesRead(*tabs->widget(i), name.toStdString());
        // The class chart's title counts its bars: the demo's four shapes were titled "top-5 classes".
        if (const auto* chart = tabs->widget(i)->findChild<ClassBarChart*>(); chart && chart->isVisible()) {
            EXPECT_TRUE(chart->title().contains(QString::number(chart->classes().size())))
                << name.toStdString() << ": '" << chart->title().toStdString() << "' over " << chart->classes().size()
                << " classes";
        }
        // Compare's JS curve has Intervene's room: it stayed at 70 px between its axes at every size.
        if (const auto* js = tabs->widget(i)->findChild<LinePlot*>("compareJs"); js && js->isVisible()) {
            EXPECT_GE(js->plot()->axisRect()->rect().height(), kMinCurveHeight)
                << name.toStdString() << ": the JS curve's data area";
        }
        if (const auto* load = tabs->widget(i)->findChild<QCustomPlot*>("routerLoad"); load && load->isVisible()) {
            EXPECT_GE(load->axisRect()->rect().height(), kMinRouterBarsHeight)
                << name.toStdString() << ": the expert load's bars";
        }
        // (On a model it cannot change, a note takes the place of the curve and the tables.)
        if (const auto* intervene = qobject_cast<InterventionPanel*>(tabs->widget(i));
            intervene && !intervene->views()->showsNote()) {
            expectKlPlotReads(*intervene, name.toStdString());
            const QCPAxisRect* cells = intervene->differenceView()->findChild<QCustomPlot*>("heatmapPlot")->axisRect();
            EXPECT_GE(cells->width(), kMinDifferenceCellsWidth) << name.toStdString() << ": the difference map's cells";
            EXPECT_GE(cells->height(), kMinDifferenceCellsHeight)
                << name.toStdString() << ": the difference map's cells";
            // The all-heads map grows with the tab: at a fixed 180 px it was a thumbnail beside an empty list at
            // 2560x1440.
            EXPECT_GE(intervene->headChangeView()->height(), intervene->height() / 4)
                << name.toStdString() << ": the all-heads map";
            // Both lists of next tokens read whole: at 1024 px they read "˽Once 0.784, ˽One 0.15…".
            for (const int column : { kTopClean, kTopChanged })
                expectCellsRead(*intervene->topTable(), column, name.toStdString() + " top-k table");
        }
        // The Model dock's lines wrap at its width: a horizontal scrollbar hid them at 1024 px.
        const auto* info = window.findChild<QPlainTextEdit*>("modelInfo");
        if (info && info->isVisible()) {
            EXPECT_FALSE(info->horizontalScrollBar()->isVisible())
                << name.toStdString() << ": the Model dock scrolls sideways";
        }
        // The lens tables' token column wraps: a horizontal scrollbar hid the tokens beside the Decode tab's plots
        // at 1024 px, and elided cells showed them only in tooltips.
        for (const char* table : { "decodeLensTable", "lensTable" })
            if (const auto* lens = tabs->widget(i)->findChild<QTableWidget*>(table); lens && lens->isVisible()) {
                EXPECT_FALSE(lens->horizontalScrollBar()->isVisible())
                    << name.toStdString() << ": the table " << table << " scrolls sideways";
                expectCellsRead(*lens, 2, name.toStdString() + " " + table);
                expectLensTableReadsWhole(*lens, name.toStdString() + " " + table);
                // The Logit lens tab's table is as tall as its rows: beside the plot its six rows left ~400 px empty.
                if (std::string_view(table) == "lensTable" && lens->rowCount() > 0) {
                    EXPECT_LE(lens->viewport()->height() - lens->verticalHeader()->length(),
                        lens->verticalHeader()->defaultSectionSize())
                        << name.toStdString() << ": an empty area under the lens table's rows";
                }
            }
        if (!dir.isEmpty()) window.grab().save(QDir(dir).filePath(name + ".png"));
        watch.widest = 0; // the next tab's own
    }
}

DemoModel demo(const QString& folder)
{
    for (const DemoModel& d : bundledDemoModels())
        if (d.path.endsWith("/" + folder)) return d;
    ADD_FAILURE() << "no bundled demo " << folder.toStdString();
    return {};
}

class Layout : public ::testing::TestWithParam<QSize> {
protected:
    void open(MainWindow& window)
    {
        window.resize(GetParam());
        window.setProperty("requestedSize", GetParam());
        window.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
        // In LayoutScale's child process the window must really be at that scale.
        if (qEnvironmentVariableIsSet("AS_EXPECT_SCALE")) {
            ASSERT_EQ(window.devicePixelRatio(), qEnvironmentVariable("AS_EXPECT_SCALE").toDouble());
        }
    }
};

TEST_P(Layout, TextModelTabsAndDecodeHoldAtThisSize)
{
    MainWindow window;
    open(window);
    window.openModel(QString::fromStdString(test::sharedPath("models/stories260K/stories260K.bin")));
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, 30000);
    window.setInputText(kLongInput);
    QTRY_VERIFY_WITH_TIMEOUT(window.snapshot() && window.snapshot()->numKeys() > 60, 30000);
    // A few decode steps, so that the decode plots have curves and legends to place.
    DecodePanel* decode = window.findChild<DecodePanel*>();
    ASSERT_NE(decode, nullptr);
    decode->setPromptText("Once upon a time");
    decode->findChild<QPushButton*>("promptButton")->click();
    QTRY_VERIFY_WITH_TIMEOUT(decode->controller()->steps().size() > 3, 10000);
    for (int i = 0; i < 8; ++i) {
        const size_t before = decode->controller()->steps().size();
        decode->stepButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(decode->controller()->steps().size(), before + 1, 10000);
    }
    // A forced token, so that the branch tree is drawn under the controls and must fit too.
    const size_t length = decode->controller()->steps().size();
    const DecodeStepPtr replaced = decode->controller()->steps()[length - 3];
    decode->controller()->force(static_cast<int64_t>(length - 3), replaced->candidates.at(1).token.id);
    QTRY_VERIFY_WITH_TIMEOUT(decode->controller()->branches().size() == 1
            && decode->controller()->steps().size() == length - 2,
        10000);
    checkEveryTab(window, "stories");
}

TEST_P(Layout, VisionTabHoldsAtThisSize)
{
    MainWindow window;
    open(window);
    window.openDemo(demo("demo-vit-shapes"));
    QTRY_VERIFY_WITH_TIMEOUT(window.findChild<VisionView*>()->result() != nullptr, 60000);
    checkEveryTab(window, "vit");
}

TEST_P(Layout, TranslationTabsHoldAtThisSize)
{
    MainWindow window;
    open(window);
    window.openDemo(demo("demo-translate-marian"));
    QTRY_VERIFY_WITH_TIMEOUT(window.findChild<AlignmentPanel*>()->score().has_value() || window.snapshot(), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(window.snapshot() && window.snapshot()->isCross(), 60000);
    checkEveryTab(window, "marian");
    // The tabs that need a decoder say so in their views' place, naming this model's kind, rather than draw empty
    // axes under a status line.
    for (QWidget* panel : std::initializer_list<QWidget*> { window.findChild<InterventionPanel*>(),
             window.findChild<LogitLensPanel*>(), window.findChild<AtlasPanel*>() }) {
        ASSERT_NE(panel, nullptr);
        const auto* note = panel->findChild<QLabel*>("viewNote");
        ASSERT_NE(note, nullptr) << panel->objectName().toStdString() << " has no note";
        EXPECT_TRUE(note->isVisibleTo(panel)) << panel->objectName().toStdString();
        EXPECT_TRUE(note->text().contains("encoder-decoder")) << note->text().toStdString();
        for (const QCustomPlot* plot : panel->findChildren<QCustomPlot*>())
            EXPECT_FALSE(plot->isVisibleTo(panel)) << panel->objectName().toStdString() << ": an empty plot";
    }
}

/// The hf-tiny Mixtral (4 experts, top-2) as a folder the window can open: its config and weights copied from the
/// shared fixture into a temporary folder (the loader refuses weights linked from outside a model folder), and a
/// word-level vocab.txt written here (the fixture has no tokenizer; any 260 entries give valid ids, and the words are
/// the ones the input uses).
QString mixtralWithTokenizer()
{
    namespace fs = std::filesystem;
    const fs::path dir = test::makeTempDir("layout-mixtral");
    const fs::path fixture = test::sharedPath("fixtures/hf-tiny/mixtral");
    for (const char* file : { "config.json", "model.safetensors" })
        fs::copy_file(fixture / file, dir / file);
    std::ofstream vocab(dir / "vocab.txt");
    const char* words[] = { "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat", "a",
        "dog", "ran", "to", "park", "and", "then", "it", "slept", "." };
    int entries = 0;
    for (const char* w : words) {
        vocab << w << "\n";
        ++entries;
    }
    for (; entries < 260; ++entries) // the model's vocabulary size
        vocab << "w" << entries << "\n";
    return QString::fromStdString(dir.string());
}

TEST_P(Layout, RouterTabHoldsAtThisSize)
{
    MainWindow window;
    open(window);
    window.openModel(mixtralWithTokenizer());
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, 30000);
    window.setInputText("the cat sat on the mat and then the dog ran to the park . then it slept on the mat .");
    QTRY_VERIFY_WITH_TIMEOUT(window.snapshot() && window.snapshot()->numKeys() > 15, 30000);
    QTabWidget* tabs = window.tabs();
    int router = -1;
    for (int i = 0; i < tabs->count(); ++i)
        if (tabName(*tabs, i) == "router") router = i;
    ASSERT_GE(router, 0);
    ASSERT_TRUE(tabs->isTabEnabled(router)) << "a mixture-of-experts run enables the Router tab";
    checkEveryTab(window, "mixtral");
}

TEST_P(Layout, CaptionTabHoldsAtThisSize)
{
    MainWindow window;
    open(window);
    const DemoModel captioner = demo("demo-caption-scenes");
    window.openDemo(captioner);
    CaptionPanel* caption = window.captionPanel();
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, 60000);
    caption->openImage(captioner.path + "/samples/scene_0.png");
    QTRY_VERIFY_WITH_TIMEOUT(caption->state() != nullptr, 60000);
    for (size_t words = 1; words <= 2; ++words) { // words, so that the strip and the map have content
        caption->step();
        QTRY_VERIFY_WITH_TIMEOUT(caption->state()->words.size() >= words || caption->state()->finished, 60000);
    }
    // A head masked, the tallest state of the tab: the mask's list and both whole captions under the caption.
    caption->maskHead(CaptionAttention::Cross, 1, 0, 0.0f);
    QTRY_VERIFY_WITH_TIMEOUT(caption->state()->comparison.has_value(), 60000);
    EXPECT_TRUE(window.lastError().isEmpty()) << "an error banner over the tab: " << window.lastError().toStdString();
    checkEveryTab(window, "caption");
}

TEST(LayoutScale, TabsHoldAtTwiceTheScale)
{
    // The smallest size and the default one: 2x at 1920 and 2560 passes too, but a run takes as long again.
    std::string output;
    const int rc = test::runCommand("QT_SCALE_FACTOR=2 AS_EXPECT_SCALE=2 timeout 900 '"
            + QCoreApplication::applicationFilePath().toStdString()
            + "' --gtest_filter='Sizes/Layout.*/1024x700:Sizes/Layout.*/1280x800' 2>&1",
        &output);
    EXPECT_EQ(rc, 0) << output;
    EXPECT_NE(output.find("[  PASSED  ] 10 tests."), std::string::npos) << output;
}

INSTANTIATE_TEST_SUITE_P(Sizes, Layout, ::testing::Values(QSize(1024, 700), QSize(1280, 800), QSize(1920, 1080), QSize(2560, 1440)),
    [](const ::testing::TestParamInfo<QSize>& p) {
        return std::to_string(p.param.width()) + "x" + std::to_string(p.param.height());
    });

} // namespace
} // namespace attn::ui
