// SPDX-License-Identifier: MIT
// Exported cross-attention: rows are the target (query) tokens and columns the source (key) tokens, in the CSV data
// and on the figure's axes, also when the target is longer than the source.
#include "core/error.h"
#include "core/npy.h"
#include "export/export_menu.h"
#include "export/figure_data.h"
#include "export/figure_renderer.h"
#include "export/recipe_snapshot.h"
#include "main_window.h"
#include "model/token_text.h"
#include "plots/stats_view.h"
#include "support/shared_data.h"
#include "ui_test_support.h"

#include <QComboBox>
#include <QFile>
#include <QSet>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTest>
#include <QXmlStreamReader>

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

namespace attn::ui {
namespace {

constexpr int64_t kHeads = 2, kQueries = 5, kKeys = 3;

std::vector<TokenChip> chips(const std::vector<std::string>& words)
{
    std::vector<TokenChip> out;
    for (size_t i = 0; i < words.size(); ++i)
        out.push_back({ words[i], static_cast<int64_t>(100 + i), false });
    return out;
}

const std::vector<std::string> kSource { "src_le", "src_chat", "src_dort" };
const std::vector<std::string> kTarget { "tgt_start", "tgt_the", "tgt_cat", "tgt_is", "tgt_asleep" };

// One layer of [heads, target, source] rows that sum to 1 and differ per cell, so a transposed or shifted export shows.
SnapshotPtr crossSnapshot()
{
    std::vector<float> values;
    for (int64_t h = 0; h < kHeads; ++h)
        for (int64_t i = 0; i < kQueries; ++i) {
            const float a = 0.1f + 0.05f * static_cast<float>(i) + 0.02f * static_cast<float>(h);
            const float b = 0.2f + 0.03f * static_cast<float>(i);
            values.insert(values.end(), { a, b, 1.0f - a - b });
        }
    return std::make_shared<const AttentionSnapshot>(chips(kSource),
        std::vector<Tensor> { Tensor({ kHeads, kQueries, kKeys }, std::move(values)) }, 0, MaskSpec {}, chips(kTarget));
}

std::vector<std::vector<std::string>> readCsv(const std::string& path)
{
    std::ifstream in(path);
    std::vector<std::vector<std::string>> rows;
    std::string line;
    while (std::getline(in, line)) {
        std::vector<std::string> cells;
        std::istringstream row(line);
        std::string cell;
        while (std::getline(row, cell, ','))
            cells.push_back(cell);
        rows.push_back(std::move(cells));
    }
    return rows;
}

FigureRecipe recipe(FigureView view)
{
    FigureRecipe r;
    r.view = view;
    r.layer = 0;
    r.head = 1;
    return r;
}

TEST(CrossStats, PositionalMetricsAreUndefinedAndNotOffered)
{
    const SnapshotPtr cross = crossSnapshot();
    const HeadStats& s = cross->stats(0, 0);
    EXPECT_TRUE(std::isnan(s.meanDistance) && std::isnan(s.previousToken) && std::isnan(s.diagonal));
    EXPECT_GT(s.entropy, 0.0);
    EXPECT_GT(s.sinkMass, 0.0); // weight on source token 0 is still meaningful
    EXPECT_EQ(classifyHead(s) & RolePreviousToken, 0u);

    StatsView view;
    view.setMetric(StatsView::PreviousToken);
    view.setSnapshot(cross);
    EXPECT_EQ(view.metric(), StatsView::Entropy); // a positional metric was shown: switched away
    const auto* metrics = qobject_cast<QStandardItemModel*>(view.findChild<QComboBox*>("statsMetric")->model());
    for (int m = 0; m < StatsView::MetricCount; ++m)
        EXPECT_EQ(metrics->item(m)->isEnabled(), !StatsView::isPositional(static_cast<StatsView::Metric>(m))) << m;
    const int previousColumn = 3 + StatsView::PreviousToken; // after layer, head, kv head
    EXPECT_EQ(view.tableModel()->item(0, previousColumn)->text(), QStringLiteral("—"));
    EXPECT_FALSE(view.tableModel()->item(0, 3 + StatsView::Entropy)->text().isEmpty());

    view.setSnapshot(test::goldenSnapshot("gpt2", true)); // self-attention: every metric again
    for (int m = 0; m < StatsView::MetricCount; ++m)
        EXPECT_TRUE(metrics->item(m)->isEnabled()) << m;
}

TEST(CrossExport, CsvHeatmapRowsAreTargetTokensAndColumnsSourceTokens)
{
    const SnapshotPtr s = crossSnapshot();
    const std::string dir = test::makeTempDir("ui-cross-csv");
    writeFigureCsv(dir + "/cross.csv", *s, recipe(FigureView::Heatmap));
    const auto rows = readCsv(dir + "/cross.csv");
    ASSERT_EQ(rows.size(), static_cast<size_t>(kQueries + 1));
    EXPECT_EQ(rows[0], (std::vector<std::string> { "query\\key", "0:src_le", "1:src_chat", "2:src_dort" }));
    const float* p = s->head(0, 1);
    for (int64_t i = 0; i < kQueries; ++i) {
        const auto& row = rows[static_cast<size_t>(i + 1)];
        ASSERT_EQ(row.size(), static_cast<size_t>(kKeys + 1));
        EXPECT_EQ(row[0], std::to_string(i) + ":" + kTarget[static_cast<size_t>(i)]);
        for (int64_t j = 0; j < kKeys; ++j)
            EXPECT_EQ(std::stof(row[static_cast<size_t>(j + 1)]), p[i * kKeys + j]) << i << "," << j;
    }
}

TEST(CrossExport, CsvLongFormNamesTheQueryAndKeyTokenOfEachCell)
{
    const SnapshotPtr s = crossSnapshot();
    const std::string dir = test::makeTempDir("ui-cross-long");
    writeFigureCsv(dir + "/grid.csv", *s, recipe(FigureView::Grid));
    const auto rows = readCsv(dir + "/grid.csv");
    ASSERT_EQ(rows.size(), static_cast<size_t>(kHeads * kQueries * kKeys + 1));
    EXPECT_EQ(rows[0][4], "query_token");
    EXPECT_EQ(rows[0][5], "key_token");
    for (size_t r = 1; r < rows.size(); ++r) {
        const size_t query = std::stoul(rows[r][2]), key = std::stoul(rows[r][3]);
        EXPECT_EQ(rows[r][4], kTarget[query]) << "row " << r;
        EXPECT_EQ(rows[r][5], kSource[key]) << "row " << r;
    }
}

TEST(CrossExport, HeatmapFigureLabelsRowsWithTargetTokens)
{
    const SnapshotPtr s = crossSnapshot();
    const std::string path = test::makeTempDir("ui-cross-svg") + "/cross.svg";
    FigureRenderer(s).render(recipe(FigureView::Heatmap), QString::fromStdString(path), FigureFormat::Svg);
    QFile file(QString::fromStdString(path));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(file.readAll());
    QSet<QString> texts;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("text"))
            texts.insert(xml.readElementText(QXmlStreamReader::IncludeChildElements));
    }
    ASSERT_FALSE(xml.hasError()) << xml.errorString().toStdString();
    EXPECT_TRUE(texts.contains("query (target)"));
    EXPECT_TRUE(texts.contains("key (source)"));
    for (const TokenChip& token : s->queryTokens())
        EXPECT_TRUE(texts.contains(elidedToken(token, 14))) << "no row label " << token.text;
    for (const TokenChip& token : s->tokens())
        EXPECT_TRUE(texts.contains(elidedToken(token, 14))) << "no column label " << token.text;
}

TEST(CrossExport, GuiDataOfTheMarianCrossAttentionNamesTargetRowsAndItsRecipeReplaysIt)
{
    MainWindow window;
    window.show();
    QSignalSpy shown(&window, &MainWindow::snapshotShown);
    window.openModel(QString::fromStdString(test::sharedPath("fixtures/hf-tiny/marian")));
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr || !window.lastError().isEmpty(), 30000);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
    window.setInputText("36 29 1 93 60 95 99 77 0"); // the fixture has no tokenizer: ids
    window.setTargetText("54 77 46 41 9 12"); // 7 decoder rows against 9 source columns
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1 || !window.lastError().isEmpty(), 30000);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
    // The start token, then the six pieces (the EOS the target gains is never fed).
    QTRY_COMPARE_WITH_TIMEOUT(window.snapshot()->numQueries(), 7, 30000);
    ASSERT_EQ(window.attentionKind(), AttentionKind::Cross);
    window.setCurrentHead(1, 2);
    window.tabs()->setCurrentIndex(0);
    const SnapshotPtr s = window.snapshot();
    ASSERT_TRUE(s->isCross());

    auto* menu = window.findChild<ExportMenu*>("exportMenu");
    ASSERT_NE(menu, nullptr);
    const std::string dir = test::makeTempDir("ui-cross-gui");
    menu->exportData(QString::fromStdString(dir + "/cross.csv"));
    const auto rows = readCsv(dir + "/cross.csv");
    ASSERT_EQ(static_cast<int64_t>(rows.size()), s->numQueries() + 1);
    ASSERT_EQ(static_cast<int64_t>(rows[0].size()), s->numKeys() + 1);
    const float* p = s->head(1, 2);
    for (int64_t i = 0; i < s->numQueries(); ++i) {
        EXPECT_EQ(rows[static_cast<size_t>(i + 1)][0], std::to_string(i) + ":" + s->queryTokens()[static_cast<size_t>(i)].text);
        for (int64_t j = 0; j < s->numKeys(); ++j)
            EXPECT_EQ(std::stof(rows[static_cast<size_t>(i + 1)][static_cast<size_t>(j + 1)]), p[i * s->numKeys() + j]);
    }
    for (int64_t j = 0; j < s->numKeys(); ++j)
        EXPECT_EQ(rows[0][static_cast<size_t>(j + 1)], std::to_string(j) + ":" + s->tokens()[static_cast<size_t>(j)].text);
    // The recipe carries both texts and the attention kind, so replaying it draws exactly this matrix, in process
    // and through `attnscope-cli export --recipe`; each other kind replays its own view.
    menu->exportRecipe(QString::fromStdString(dir + "/cross.json"));
    const FigureRecipe recipe = readRecipeFile(dir + "/cross.json");
    EXPECT_EQ(recipe.prompt, "36 29 1 93 60 95 99 77 0");
    EXPECT_EQ(recipe.target, "54 77 46 41 9 12");
    EXPECT_EQ(recipe.attention, AttentionKind::Cross);
    EXPECT_TRUE(recipe.tokens.empty());
    const SnapshotPtr replayed = computeRecipeSnapshot(recipe);
    ASSERT_TRUE(replayed->isCross());
    ASSERT_EQ(replayed->layer(1).numel(), s->layer(1).numel());
    EXPECT_TRUE(std::equal(s->layer(1).data(), s->layer(1).data() + s->layer(1).numel(), replayed->layer(1).data()));
    std::string out;
    ASSERT_EQ(test::runCommand(test::cliPath() + " export --recipe " + dir + "/cross.json --format npy --out " + dir
                      + "/cross.npy",
                  &out),
        0)
        << out;
    const Tensor cli = readNpy(dir + "/cross.npy"); // [q, k] of layer 1 head 2
    ASSERT_EQ(cli.numel(), s->numQueries() * s->numKeys());
    EXPECT_TRUE(std::equal(p, p + cli.numel(), cli.data()));
    for (const AttentionKind kind : { AttentionKind::EncoderSelf, AttentionKind::DecoderSelf }) {
        FigureRecipe other = recipe;
        other.attention = kind;
        EXPECT_EQ(computeRecipeSnapshot(other)->layer(1).numel(), window.runResult()->view(kind)->layer(1).numel());
    }
}

TEST(CrossExport, RecipesOfEncoderDecodersNeedTextNotIdsAndAnAttentionTheModelHas)
{
    FigureRecipe r;
    r.model = test::sharedPath("fixtures/hf-tiny/marian");
    r.tokens = { 36, 29, 0 };
    r.target = "54 77";
    EXPECT_THROW(computeRecipeSnapshot(r), Error);
    r.tokens.clear();
    r.prompt = "36 29 0";
    r.attention = AttentionKind::Cross;
    EXPECT_EQ(computeRecipeSnapshot(r)->numQueries(), 3); // start token + 2 target pieces
    EXPECT_EQ(attentionKindFromKey(attentionKindKey(AttentionKind::DecoderSelf)), AttentionKind::DecoderSelf);
    EXPECT_THROW(attentionKindFromKey("encoder-self"), Error);
    EXPECT_EQ(recipeFromJson(recipeToJson(r), "test").attention, AttentionKind::Cross);
    EXPECT_EQ(recipeFromJson(recipeToJson(r), "test").target, "54 77");
}

} // namespace
} // namespace attn::ui
