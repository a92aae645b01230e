// SPDX-License-Identifier: MIT
// Exported cross-attention: rows are the target (query) tokens and columns the source (key) tokens, in the CSV data
// and on the figure's axes, also when the target is longer than the source.
#include "export/figure_data.h"
#include "export/figure_renderer.h"
#include "model/token_text.h"
#include "support/shared_data.h"

#include <QFile>
#include <QSet>
#include <QXmlStreamReader>

#include <gtest/gtest.h>

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

TEST(CrossExport, CsvHeatmapRowsAreTargetTokensAndColumnsSourceTokens)
{
    const SnapshotPtr s = crossSnapshot();
    const std::string dir = test::makeTempDir("ui-cross-csv");
    writeFigureCsv(dir + "/cross.csv", *s, recipe(FigureView::Heatmap));
    const auto rows = readCsv(dir + "/cross.csv");
    ASSERT_EQ(rows.size(), static_cast<size_t>(kQueries + 1));
    EXPECT_EQ(rows[0], (std::vector<std::string> { "query\\key", "src_le", "src_chat", "src_dort" }));
    const float* p = s->head(0, 1);
    for (int64_t i = 0; i < kQueries; ++i) {
        const auto& row = rows[static_cast<size_t>(i + 1)];
        ASSERT_EQ(row.size(), static_cast<size_t>(kKeys + 1));
        EXPECT_EQ(row[0], kTarget[static_cast<size_t>(i)]);
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
    for (const TokenChip& token : s->queryTokens())
        EXPECT_TRUE(texts.contains(elidedToken(token, 14))) << "no row label " << token.text;
    for (const TokenChip& token : s->tokens())
        EXPECT_TRUE(texts.contains(elidedToken(token, 14))) << "no column label " << token.text;
}

} // namespace
} // namespace attn::ui
