// SPDX-License-Identifier: MIT
// The Alignment tab on the PyTorch tutorial's GRU toy (seq2seq-attn-de-en-toy), offscreen: the shown matrix is the
// engine's attention (and the tutorial's reference attention), the drawn hard alignment is argmaxPerTarget of it,
// the shown AER is scoreAlignments' on a gold file, and beam search lists K beams.
#include "align/alignment_controller.h"
#include "align/alignment_panel.h"
#include "align/alignment_view.h"
#include "align_test_support.h"
#include "core/error.h"
#include "core/npy.h"
#include "export/figure_export.h"
#include "model/rnn_seq2seq.h"
#include "support/shared_data.h"

#include "controller/engine_controller.h"

#include <QLabel>
#include <QListWidget>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <future>
#include <iterator>
#include <sstream>
#include <utility>

namespace attn::ui {
namespace {

const char* kToy = "models/seq2seq-attn-de-en-toy";

nlohmann::json toyReference(size_t sentence)
{
    std::ifstream in(test::sharedPath(std::string(kToy) + "/reference_translations_with_attention.json"));
    return nlohmann::json::parse(in).at(sentence);
}

/// The tutorial's hypothesis without its final " <EOS>": the reference to teacher-force.
std::string referenceOf(const nlohmann::json& ref)
{
    std::string hyp = ref["hyp"].get<std::string>();
    const std::string eos = " <EOS>";
    if (hyp.size() > eos.size() && hyp.compare(hyp.size() - eos.size(), eos.size(), eos) == 0)
        hyp.resize(hyp.size() - eos.size());
    return hyp;
}

/// Teacher-forced attention rows straight from the engine (one [K] row per target token, EOS row included).
std::vector<std::vector<float>> engineAttention(const std::string& source, const std::string& reference)
{
    const auto model = loadRnnSeq2Seq(test::sharedPath(kToy));
    const RnnEncoding enc = model->encode(model->sourceIds(source));
    RnnDecoderState state = model->initialState(enc);
    std::vector<std::vector<float>> rows;
    int64_t token = model->startToken();
    std::istringstream words(reference);
    std::vector<int64_t> target;
    for (std::string w; words >> w;) {
        const auto& vocab = model->targetVocab();
        target.push_back(std::find(vocab.begin(), vocab.end(), w) - vocab.begin());
    }
    target.push_back(model->eosToken());
    for (int64_t id : target) {
        rows.push_back(model->step(enc, state, token).attention);
        token = id;
    }
    return rows;
}

class AlignViewTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_panel = std::make_unique<AlignmentPanel>();
        m_panel->resize(1280, 800);
        m_panel->show(); // lays the view out at its real size, so grabs show the drawn figure
        ASSERT_TRUE(QTest::qWaitForWindowExposed(m_panel.get()));
        QSignalSpy available(m_panel.get(), &AlignmentPanel::availableChanged);
        m_panel->openModel(QString::fromStdString(test::sharedPath(kToy)));
        QTRY_COMPARE_WITH_TIMEOUT(available.count(), 1, 30000);
        ASSERT_TRUE(available.at(0).at(0).toBool()) << m_panel->lastError().toStdString();
    }

    void align(const std::string& source, const std::string& reference, int beams)
    {
        m_panel->setSourceText(QString::fromStdString(source));
        m_panel->setReferenceText(QString::fromStdString(reference));
        m_panel->setBeamWidth(beams);
        ASSERT_TRUE(test::showAndWait(*m_panel, [&] { m_panel->align(); }));
        ASSERT_TRUE(m_panel->lastError().isEmpty()) << m_panel->lastError().toStdString();
    }

    std::unique_ptr<AlignmentPanel> m_panel;
};

// Sentence 0: "man wei sehr wenig uber sie ." -> "they re very little understood ." The words are whole vocabulary
// entries, so merging keeps every piece and drops only EOS: the matrix is the engine's rows without EOS.
TEST_F(AlignViewTest, MatrixIsTheEngineAttention)
{
    const nlohmann::json ref = toyReference(0);
    const std::string source = ref["src"].get<std::string>(), reference = referenceOf(ref);
    align(source, reference, 0);
    const Tensor& shown = m_panel->view()->matrix();
    const auto rows = engineAttention(source, reference);
    const int64_t S = 7, T = 6; // words of each side, EOS left out
    ASSERT_EQ(shown.shape(), (Shape { T, S }));
    ASSERT_EQ(static_cast<int64_t>(rows.size()), T + 1);
    const auto& tutorial = ref["attention"];
    for (int64_t t = 0; t < T; ++t)
        for (int64_t s = 0; s < S; ++s) {
            EXPECT_EQ(shown.data()[t * S + s], rows[t][s]) << t << "," << s;
            // The tutorial's own (PyTorch) weights, rounded to 6 decimals.
            EXPECT_NEAR(shown.data()[t * S + s], tutorial[t][s].get<double>(), 2e-6) << t << "," << s;
        }
    const std::vector<std::string> words { "man", "wei", "sehr", "wenig", "uber", "sie", "." };
    EXPECT_EQ(m_panel->run()->source.words, words);
}

TEST_F(AlignViewTest, DrawnHardAlignmentIsArgmaxPerTarget)
{
    const nlohmann::json ref = toyReference(3);
    align(ref["src"].get<std::string>(), referenceOf(ref), 0);
    AlignmentView* view = m_panel->view();
    EXPECT_EQ(view->links(), argmaxPerTarget(view->matrix()));
    const int64_t T = view->matrix().dim(0), S = view->matrix().dim(1);
    ASSERT_EQ(static_cast<int64_t>(view->links().size()), T);
    // Each row's dot sits in its largest cell, and only there: sample the cell centres of the drawn image.
    const QImage image = view->grab().toImage();
    const qreal dpr = image.devicePixelRatio();
    for (int64_t t = 0; t < T; ++t) {
        const float* row = view->matrix().data() + t * S;
        const int64_t best = std::max_element(row, row + S) - row;
        for (int64_t s = 0; s < S; ++s) {
            const QPointF c = view->cellRect(static_cast<int>(t), static_cast<int>(s)).center() * dpr;
            const QColor pixel = image.pixelColor(c.toPoint());
            const bool dot = pixel.red() > 150 && pixel.green() < 80 && pixel.blue() < 100;
            EXPECT_EQ(dot, s == best) << "row " << t << " column " << s;
        }
    }
}

TEST_F(AlignViewTest, ShownAerIsScoreAlignments)
{
    const nlohmann::json ref = toyReference(0);
    align(ref["src"].get<std::string>(), referenceOf(ref), 0);
    // man wei sehr wenig uber sie . / they re very little understood . (hand-made, sentence 1 of the file)
    const std::string line = "0-0 1-1 5?0 2-2 3-3 1?4 4-4 6-5";
    QTemporaryDir dir;
    const QString path = dir.filePath("gold.pharaoh");
    std::ofstream(path.toStdString()) << "0-0\n" << line << "\n";
    m_panel->setGold(path, 1);
    ASSERT_TRUE(m_panel->score().has_value()) << m_panel->lastError().toStdString();
    const AlignmentScore expected
        = scoreAlignments({ argmaxPerTarget(m_panel->view()->matrix()) }, { parsePharaohLine(line, "test") });
    EXPECT_EQ(m_panel->score()->aer, expected.aer);
    EXPECT_EQ(m_panel->score()->precision, expected.precision);
    EXPECT_EQ(m_panel->score()->recall, expected.recall);
    EXPECT_EQ(expected.sure, 6);
    const QString shown = m_panel->findChild<QLabel*>("alignScore")->text();
    EXPECT_TRUE(shown.contains(QString::number(expected.aer, 'f', 4))) << shown.toStdString();
    EXPECT_TRUE(shown.contains(QString::number(expected.recall, 'f', 4))) << shown.toStdString();

    // A sentence the file does not have is reported, not shown as a score.
    m_panel->setGold(path, 5);
    EXPECT_FALSE(m_panel->score().has_value());
    EXPECT_TRUE(m_panel->lastError().contains("no sentence 5")) << m_panel->lastError().toStdString();
}

TEST_F(AlignViewTest, BeamListShowsKBeamsAndEachBeamsAlignment)
{
    const nlohmann::json ref = toyReference(6);
    align(ref["src"].get<std::string>(), "", 3);
    QListWidget* list = m_panel->hypothesisList();
    ASSERT_EQ(list->count(), 3);
    const auto& hyps = m_panel->run()->hypotheses;
    ASSERT_EQ(hyps.size(), 3u);
    for (size_t k = 1; k < hyps.size(); ++k)
        EXPECT_GE(hyps[k - 1].score, hyps[k].score);
    for (int k = 0; k < 3; ++k) {
        EXPECT_TRUE(list->item(k)->text().contains(QString::fromStdString(hyps[static_cast<size_t>(k)].text)));
        if (k != list->currentRow()) { // the first beam is shown already
            ASSERT_TRUE(test::showAndWait(*m_panel, [&] { m_panel->selectHypothesis(k); }));
        }
        const Tensor& m = m_panel->view()->matrix();
        const AlignmentHypothesis& h = hyps[static_cast<size_t>(k)];
        ASSERT_EQ(m.dim(0), static_cast<int64_t>(h.target.words.size()));
        // Row t is the attention of the step that chose target word t (one word per piece in this model).
        for (int64_t t = 0; t < m.dim(0); ++t)
            for (int64_t s = 0; s < m.dim(1); ++s)
                EXPECT_EQ(m.data()[t * m.dim(1) + s], h.steps[static_cast<size_t>(t)].data()[s]);
    }
}

// The figure goes through the Export facility as vectors: the SVG carries the words as text, and a PNG at 192 dpi
// has twice the logical size.
TEST_F(AlignViewTest, ExportsAsVectorFigure)
{
    const nlohmann::json ref = toyReference(0);
    align(ref["src"].get<std::string>(), referenceOf(ref), 0);
    QTemporaryDir dir;
    const QString svg = dir.filePath("alignment.svg"), png = dir.filePath("alignment.png");
    AlignmentView& view = *m_panel->view();
    exportWidget(view, svg, FigureFormat::Svg, { QSize(640, 560), 96 });
    exportWidget(view, png, FigureFormat::Png, { QSize(640, 560), 192 });
    std::ifstream in(svg.toStdString());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const char* word : { "wenig", "understood", "gold possible" })
        EXPECT_NE(text.find(word), std::string::npos) << word;
    EXPECT_EQ(QImage(png).size(), QSize(1280, 1120));
}

const char* kMarian = "fixtures/hf-tiny/marian";

/// Opens the hf-tiny MarianMT fixture (no tokenizer, so texts are ids) in `panel` and teacher-forces its golden
/// decoder_input_ids; returns the source ids and decoder input ids.
std::pair<std::vector<int64_t>, std::vector<int64_t>> alignMarianGolden(AlignmentPanel& panel)
{
    const std::string dir = test::sharedPath(kMarian);
    QSignalSpy available(&panel, &AlignmentPanel::availableChanged);
    panel.openModel(QString::fromStdString(dir));
    EXPECT_TRUE(!available.isEmpty() || available.wait(30000));
    EXPECT_TRUE(!available.isEmpty() && available.at(0).at(0).toBool()) << panel.lastError().toStdString();
    const auto join = [](const std::vector<int64_t>& ids, size_t from) {
        std::string out;
        for (size_t i = from; i < ids.size(); ++i)
            out += std::to_string(ids[i]) + " ";
        return QString::fromStdString(out);
    };
    std::vector<int64_t> input = readNpyInts(dir + "/golden/item0/input_ids.npy");
    std::vector<int64_t> decoderInput = readNpyInts(dir + "/golden/item0/decoder_input_ids.npy");
    EXPECT_EQ(input.back(), 0); // EOS ends the source; decoder_input_ids start with decoder_start_token_id
    panel.setSourceText(join(input, 0));
    panel.setReferenceText(join(decoderInput, 1));
    panel.setBeamWidth(0);
    EXPECT_TRUE(test::showAndWait(panel, [&] { panel.align(); }));
    return { std::move(input), std::move(decoderInput) };
}

// A transformer encoder-decoder: the hf-tiny MarianMT fixture teacher-forced on its golden decoder_input_ids. Each
// chosen layer/head matrix is HF's cross-attention without the EOS row and column.
TEST(AlignmentPanelMarian, MatrixIsHfCrossAttention)
{
    const std::string dir = test::sharedPath(kMarian);
    AlignmentPanel panel;
    const auto [input, decoderInput] = alignMarianGolden(panel);
    ASSERT_FALSE(HasFailure());
    const int64_t S = static_cast<int64_t>(input.size()) - 1, T = static_cast<int64_t>(decoderInput.size()) - 1;
    for (int layer = 0; layer < 2; ++layer) {
        char name[64];
        std::snprintf(name, sizeof name, "/golden/item0/cross_attentions.L%02d.npy", layer);
        const Tensor hf = readNpy(dir + name); // [heads, q, S + 1]
        for (int64_t head = 0; head < hf.dim(0); ++head) {
            ASSERT_TRUE(test::showAndWait(panel, [&] {
                panel.setAggregation({ AlignmentAggregation::Heads::One, head, layer });
            }));
            const Tensor& m = panel.view()->matrix();
            ASSERT_EQ(m.shape(), (Shape { T, S }));
            for (int64_t t = 0; t < T; ++t)
                for (int64_t s = 0; s < S; ++s)
                    EXPECT_NEAR(m.data()[t * S + s], hf.data()[(head * hf.dim(1) + t) * hf.dim(2) + s], 1e-5)
                        << "layer " << layer << " head " << head << " t " << t << " s " << s;
        }
    }
}

// Another aggregation's word matrix (a pass over the hypothesis' queries and the source's keys per head) is derived
// on the engine thread: while the engine is busy, the GUI thread goes on and the panel keeps showing the previous
// matrix; of two requests made meanwhile only the latest is shown, once, and it is wordMatrix's.
TEST(AlignmentPanelMarian, AnotherAggregationIsDerivedOnTheEngineThreadAndOnlyTheLatestShown)
{
    EngineController engine;
    AlignmentPanel panel(&engine);
    alignMarianGolden(panel);
    ASSERT_FALSE(HasFailure());
    const std::vector<float> before = panel.view()->matrix().storage();
    ASSERT_FALSE(before.empty());

    // Released on every way out of the test, so a failed check does not leave the engine thread waiting forever.
    struct Release {
        std::promise<void> promise;
        bool done = false;
        void now()
        {
            if (!std::exchange(done, true)) promise.set_value();
        }
        ~Release() { now(); }
    } release;
    std::shared_future<void> released = release.promise.get_future().share();
    auto busy = std::make_shared<std::atomic<bool>>(false);
    engine.post<int>(
        &panel,
        [released, busy](EngineContext&) {
            busy->store(true);
            released.wait();
            return 0;
        },
        [](int) {}, {});
    QTRY_VERIFY_WITH_TIMEOUT(busy->load(), 30000);
    QSignalSpy shown(&panel, &AlignmentPanel::shown);
    const AlignmentAggregation first { AlignmentAggregation::Heads::One, 1, 0 };
    const AlignmentAggregation latest { AlignmentAggregation::Heads::Max, 0, 1 };
    panel.setAggregation(first);
    panel.setAggregation(latest);
    QTest::qWait(100);
    EXPECT_EQ(shown.count(), 0);
    EXPECT_EQ(panel.view()->matrix().storage(), before); // nothing was computed on the GUI thread

    release.now();
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);
    QTest::qWait(100); // the first request's answer, had it been passed on, would be here by now
    EXPECT_EQ(shown.count(), 1);
    const AlignmentRunPtr run = panel.run();
    const Tensor expected = wordMatrix(run->hypotheses[0], run->source, latest);
    EXPECT_EQ(panel.view()->matrix().storage(), expected.storage());
    EXPECT_TRUE(panel.lastError().isEmpty()) << panel.lastError().toStdString();
}

// A superseded matrix stops before its next head's tile instead of running to the end.
TEST(AlignmentMatrix, StopsBeforeTheNextHeadWhenSuperseded)
{
    const Translator translator(test::sharedPath(kMarian));
    const AlignmentRunPtr run = runAlignment(translator, "120 33 7 91 15 0", "44 12 8 19", 0);
    int polls = 0;
    EXPECT_THROW(wordMatrix(run->hypotheses[0], run->source, {}, [&] { return ++polls == 3; }), Error);
    EXPECT_EQ(polls, 3);
    polls = 0;
    const Tensor all = wordMatrix(run->hypotheses[0], run->source, {}, [&] { return ++polls < 0; });
    EXPECT_EQ(polls, run->layers() * run->heads()); // once per head of every layer (the mean of the layers)
    EXPECT_EQ(all.storage(), wordMatrix(run->hypotheses[0], run->source, {}).storage());
}

// The tab keeps a transformer's cross-attention as each step's queries (no [layers, heads, S] probabilities per
// step) and reads its rows through an attention source over them and the encoding's keys: every row equals the one
// the decoder computed at that step (materialized, teacher-forcing the hypothesis' tokens), to 1e-6.
TEST(AlignmentRunMarian, KeepsQueriesNotProbabilitiesAndDerivesTheDecodersRows)
{
    const Translator translator(test::sharedPath("fixtures/hf-tiny/marian"));
    const AlignmentRunPtr run = runAlignment(translator, "120 33 7 91 15 0", "44 12 8 19", 2);
    ASSERT_EQ(run->hypotheses.size(), 3u); // the reference and two beams
    EXPECT_EQ(run->layers(), 2);
    for (const AlignmentHypothesis& hyp : run->hypotheses) {
        SCOPED_TRACE(hyp.label);
        EXPECT_TRUE(hyp.steps.empty());
        ASSERT_NE(hyp.cross, nullptr);
        const int64_t T = hyp.length(), S = hyp.cross->numKeys();
        ASSERT_EQ(T, static_cast<int64_t>(hyp.target.ids.size()));
        ASSERT_EQ(S, static_cast<int64_t>(run->source.ids.size()));
        const std::unique_ptr<BeamDecoder> decoder = translator.decoder(run->source.ids);
        int64_t next = translator.startToken();
        double worst = 0;
        for (int64_t t = 0; t < T; ++t) {
            const Tensor materialized = decoder->step(next).crossAttention; // [layers, heads, S]
            for (int64_t l = 0; l < hyp.layers(); ++l)
                for (int64_t h = 0; h < hyp.heads(); ++h) {
                    const auto row = hyp.cross->tile(l, { h, t, t + 1, 0, S });
                    for (int64_t s = 0; s < S; ++s)
                        worst = std::max(worst, std::fabs(double(row->data()[s]) - materialized.at({ l, h, s })));
                }
            next = hyp.target.ids[static_cast<size_t>(t)];
        }
        EXPECT_LE(worst, 1e-6);
    }
}

TEST(AlignmentMatrix, AggregatesHeadsAndLayers)
{
    // Two layers x two heads over two source words, one target step.
    AlignmentHypothesis hyp;
    Tensor a({ 2, 2, 2 });
    const float w[] = { 0.9f, 0.1f, 0.2f, 0.8f, 0.5f, 0.5f, 0.3f, 0.7f };
    std::copy(w, w + 8, a.data());
    hyp.steps.push_back(a);
    hyp.target.wordOfPiece = { 0 };
    AlignedSide source;
    source.ids = { 5, 6 };
    source.wordOfPiece = { 0, 1 };
    using Heads = AlignmentAggregation::Heads;
    const auto at = [&](Heads heads, int64_t head, int64_t layer, int64_t s) {
        return wordMatrix(hyp, source, { heads, head, layer }).data()[s];
    };
    EXPECT_FLOAT_EQ(at(Heads::One, 1, 0, 1), 0.8f);
    EXPECT_FLOAT_EQ(at(Heads::Mean, 0, 0, 0), 0.55f);
    EXPECT_FLOAT_EQ(at(Heads::Max, 0, 1, 1), 0.7f);
    EXPECT_FLOAT_EQ(at(Heads::Mean, 0, -1, 0), (0.55f + 0.4f) / 2);
    EXPECT_FLOAT_EQ(at(Heads::Max, 0, -1, 1), (0.8f + 0.7f) / 2);
    EXPECT_THROW(wordMatrix(hyp, source, { Heads::One, 2, 0 }), Error);
    EXPECT_THROW(wordMatrix(hyp, source, { Heads::Mean, 0, 2 }), Error);
}

// The README screenshot: the whole tab at 1280x800 in the middle of step-by-step decoding (four of seven tokens),
// with a gold file. Written to $AS_ALIGN_SCREENSHOT when set (see README), otherwise only checked for size.
TEST_F(AlignViewTest, Screenshot)
{
    const nlohmann::json ref = toyReference(0);
    m_panel->setSourceText(QString::fromStdString(ref["src"].get<std::string>()));
    QTemporaryDir dir;
    const QString gold = dir.filePath("gold.pharaoh");
    std::ofstream(gold.toStdString()) << "0-0 0-1 2-2 3-3 1?4 4-4 5?4 6-5\n";
    m_panel->setGold(gold, 0);
    for (int k = 1; k <= 4; ++k)
        ASSERT_TRUE(test::showAndWait(*m_panel, [&] { m_panel->step(); }));
    ASSERT_TRUE(m_panel->lastError().isEmpty()) << m_panel->lastError().toStdString();
    ASSERT_EQ(m_panel->view()->matrix().dim(0), 4);
    QTest::qWait(50); // let the layouts take the new label and list texts
    const QImage shot = m_panel->grab().toImage();
    EXPECT_EQ(shot.size(), QSize(1280, 800) * shot.devicePixelRatio());
    const QByteArray out = qgetenv("AS_ALIGN_SCREENSHOT");
    if (!out.isEmpty()) {
        EXPECT_TRUE(shot.save(QString::fromUtf8(out)));
    }
}

} // namespace
} // namespace attn::ui
