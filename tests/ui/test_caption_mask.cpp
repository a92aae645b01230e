// SPDX-License-Identifier: MIT
// The Caption tab's head mask on the bundled demo captioner, through the window's one engine controller: a head
// removed from the mask bar re-runs the caption at its length, and the words, their cross-attention and the whole
// captions with and without the mask are the engine's own (CaptionRun called directly on the same pixels); the
// difference marks the changed words, and Undo brings back the unmasked caption exactly. The difference map beside the
// selected word's map is its cross-attention with the mask minus the unmodified model's for the same words.
#include "caption/caption_panel.h"
#include "main_window.h"
#include "model/model_loader.h"
#include "support/shared_data.h"
#include "vision/patch_map_view.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

#include <gtest/gtest.h>

#include <algorithm>

namespace attn::ui {
namespace {

constexpr int kTimeoutMs = 60000;
const QString kDemo = QStringLiteral(AS_SOURCE_DIR "/resources/models/demo-caption-scenes");

/// The engine's whole greedy caption of `pixels` under `mask` (empty: none), special tokens kept.
std::vector<CaptionWord> engineCaption(const Captioner& c, const Tensor& pixels, const CaptionOptions& options)
{
    CaptionRun run(c.model, encodeImage(*c.model, pixels, options.headMask, {}), options);
    while (run.step()) { }
    return run.words();
}

std::vector<int64_t> idsWithoutSpecial(const Captioner& c, const std::vector<CaptionWord>& words)
{
    std::vector<int64_t> ids;
    for (const CaptionWord& w : words)
        if (!c.tokenizer->isSpecial(w.token)) ids.push_back(w.token);
    return ids;
}

template <class W> W* child(QWidget& panel, const char* name)
{
    W* w = panel.findChild<W*>(name);
    if (!w) ADD_FAILURE() << "no " << name;
    return w;
}

/// `window` at 1280x800 with the demo captioner open, its first sample captioned to three words.
void captionThreeWords(MainWindow& window)
{
    window.resize(1280, 800);
    window.show();
    window.openModel(kDemo);
    CaptionPanel* panel = window.captionPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->state() != nullptr, kTimeoutMs);
    for (size_t n = 1; n <= 3; ++n) {
        panel->step();
        QTRY_VERIFY_WITH_TIMEOUT(panel->state()->words.size() == n, kTimeoutMs);
    }
}

TEST(CaptionPanel, AMaskedHeadShowsTheEnginesMaskedCaptionAndItsDiffAndUndoRestoresItExactly)
{
    MainWindow window;
    CaptionPanel* panel = window.captionPanel();
    captionThreeWords(window);
    ASSERT_TRUE(panel->state() && panel->state()->words.size() == 3u);
    const CaptionPtr unmasked = panel->state();
    EXPECT_FALSE(unmasked->comparison.has_value());
    EXPECT_TRUE(panel->diffText()->isHidden());
    auto* undo = child<QPushButton>(*panel, "captionMaskUndo");
    ASSERT_NE(undo, nullptr);
    EXPECT_FALSE(undo->isEnabled());

    // Remove cross-attention head 0 of decoder layer 1 with the mask bar (the demo's caption of this sample changes
    // with that head alone: "a blue cross above a green circle").
    child<QComboBox>(*panel, "captionMaskKind")->setCurrentIndex(2);
    child<QSpinBox>(*panel, "captionMaskLayer")->setValue(1);
    child<QSpinBox>(*panel, "captionMaskHead")->setValue(0);
    child<QDoubleSpinBox>(*panel, "captionMaskFactor")->setValue(0.0);
    QTest::mouseClick(child<QPushButton>(*panel, "captionMaskApply"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(panel->state() != unmasked && panel->state()->comparison.has_value(), kTimeoutMs);
    const CaptionState& masked = *panel->state();
    ASSERT_EQ(panel->headMask().size(), 1u);
    EXPECT_EQ(panel->headMask()[0], (CaptionMaskEntry { masked.headRows.crossRow(1), 0, 0.0f }));
    EXPECT_TRUE(undo->isEnabled());

    // The engine called directly on the same pixels, with and without the mask.
    const Captioner c = loadCaptioner(kDemo.toStdString());
    const Tensor pixels = loadCaptionImage(c.model->imageEncoder(), unmasked->source).pixels;
    CaptionOptions options = unmasked->options;
    const std::vector<CaptionWord> plain = engineCaption(c, pixels, options);
    options.headMask = masked.options.headMask;
    ASSERT_EQ(options.headMask.shape(), (Shape { 6, 4 }));
    EXPECT_EQ(options.headMask.at({ 5, 0 }), 0.0f);
    const std::vector<CaptionWord> want = engineCaption(c, pixels, options);
    ASSERT_EQ(masked.words.size(), 3u) << "the masked caption is re-run to the length shown";
    for (size_t w = 0; w < 3; ++w) {
        EXPECT_EQ(masked.words[w].token, want[w].token) << "word " << w;
        const std::vector<float>& got = masked.words[w].crossAttention.storage();
        const std::vector<float>& ref = want[w].crossAttention.storage();
        ASSERT_EQ(got.size(), ref.size());
        for (size_t i = 0; i < got.size(); ++i)
            EXPECT_NEAR(got[i], ref[i], 1e-6) << "word " << w << " element " << i;
        EXPECT_EQ(masked.patchMap(w, 1, 0), std::vector<float>(static_cast<size_t>(masked.grid.patches()), 0.0f))
            << "removed head";
    }
    const CaptionComparison& cmp = *masked.comparison;
    EXPECT_EQ(cmp.unmasked.ids, idsWithoutSpecial(c, plain));
    EXPECT_EQ(cmp.masked.ids, idsWithoutSpecial(c, want));
    EXPECT_EQ(cmp.unmasked.text.toStdString(), "a green cross above a blue cross"); // PyTorch's (reference.json)
    ASSERT_NE(cmp.masked.ids, cmp.unmasked.ids) << "removing the head changes the demo's caption";

    // The difference: both whole captions, the words that differ marked, shown under the caption.
    const QString diff = panel->diffText()->text();
    EXPECT_TRUE(panel->diffText()->isVisible());
    EXPECT_TRUE(diff.contains("line-through")) << diff.toStdString();
    EXPECT_TRUE(diff.contains("font-weight:bold")) << diff.toStdString();
    for (const QString& w : cmp.masked.words)
        EXPECT_TRUE(diff.contains(w.toHtmlEscaped())) << w.toStdString();
    if (const QString dir = qEnvironmentVariable("AS_CAPTION_MASK_SCREENSHOTS"); !dir.isEmpty())
        for (const QSize size : { QSize(1024, 700), QSize(1280, 800) }) {
            window.resize(size);
            QTest::qWait(300);
            EXPECT_TRUE(
                window.grab().save(QString("%1/caption-mask-%2x%3.png").arg(dir).arg(size.width()).arg(size.height())));
        }

    // Undo: the unmasked caption again, bit for bit, and no difference shown.
    QTest::mouseClick(undo, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!panel->state()->comparison.has_value(), kTimeoutMs);
    const CaptionState& back = *panel->state();
    EXPECT_TRUE(panel->headMask().empty());
    EXPECT_FALSE(undo->isEnabled());
    EXPECT_TRUE(back.options.headMask.empty());
    ASSERT_EQ(back.words.size(), unmasked->words.size());
    for (size_t w = 0; w < back.words.size(); ++w) {
        EXPECT_EQ(back.words[w].token, unmasked->words[w].token) << "word " << w;
        EXPECT_EQ(back.words[w].probability, unmasked->words[w].probability) << "word " << w;
        EXPECT_EQ(back.words[w].crossAttention.storage(), unmasked->words[w].crossAttention.storage()) << "word " << w;
    }
    EXPECT_EQ(back.caption, unmasked->caption);
    EXPECT_TRUE(panel->diffText()->isHidden());
}

/// Layer `layer`, head `head` of the unmodified model's cross-attention over the patches for each of `words`, fed
/// the start token and the words before it in one prefill (not CaptionRun's steps): [words][patches].
std::vector<std::vector<float>> teacherForcedHead(
    const Captioner& c, const CaptionState& s, const std::vector<CaptionWord>& words, int64_t layer, int64_t head)
{
    std::vector<int64_t> fed { c.model->decoderStartToken() };
    for (size_t w = 0; w + 1 < words.size(); ++w)
        fed.push_back(words[w].token);
    const Tensor pixels = loadCaptionImage(c.model->imageEncoder(), s.source).pixels;
    KvCache cache = c.model->newDecoderCache();
    const Seq2SeqStepResult r = c.model->decode(*encodeImage(*c.model, pixels, {}, {}), cache, fed, {});
    const Tensor& cross = r.crossAttention[static_cast<size_t>(layer)]; // [heads, T, S]
    const int64_t T = cross.dim(1), S = cross.dim(2);
    std::vector<std::vector<float>> maps;
    for (int64_t w = 0; w < T; ++w) {
        const float* row = cross.data() + (head * T + w) * S + s.prefixTokens;
        maps.emplace_back(row, row + s.grid.patches());
    }
    return maps;
}

TEST(CaptionPanel, TheDifferenceMapShowsTheSelectedWordsAttentionWithTheMaskMinusWithout)
{
    MainWindow window;
    CaptionPanel* panel = window.captionPanel();
    captionThreeWords(window);
    ASSERT_TRUE(panel->state() && panel->state()->words.size() == 3u);
    const PatchMapView* map = panel->diffMap();
    EXPECT_TRUE(map->isHidden()) << "no mask, no difference";

    const CaptionPtr before = panel->state();
    panel->maskHead(CaptionAttention::Cross, 1, 0, 0.0f);
    QTRY_VERIFY_WITH_TIMEOUT(panel->state() != before && panel->state()->comparison.has_value(), kTimeoutMs);
    const CaptionState& masked = *panel->state();
    ASSERT_TRUE(masked.hasDifference());
    EXPECT_TRUE(map->isVisible());
    const Captioner c = loadCaptioner(kDemo.toStdString());
    const std::vector<std::vector<float>> head0 = teacherForcedHead(c, masked, masked.words, 1, 0);
    ASSERT_EQ(head0.size(), 3u);

    // The removed head itself: its whole unmasked map, negated (it attends nowhere now), strongest where it looked.
    panel->setHead(1, 0);
    ASSERT_EQ(panel->selectedWord(), 2);
    ASSERT_EQ(map->values().size(), head0[2].size());
    for (size_t p = 0; p < head0[2].size(); ++p)
        EXPECT_NEAR(map->values()[p], -head0[2][p], 1e-6) << "patch " << p;
    const auto lowest = std::min_element(map->values().begin(), map->values().end()) - map->values().begin();
    EXPECT_EQ(lowest, std::max_element(head0[2].begin(), head0[2].end()) - head0[2].begin());
    EXPECT_EQ(map->scaleLabels().size(), 3) << "a signed scale under the map";

    // The mean of the last layer's heads: only head 0 changed, by all of its weight, so a quarter of it per patch.
    panel->setHead(1, -1);
    panel->selectWord(0);
    for (size_t p = 0; p < head0[0].size(); ++p)
        EXPECT_NEAR(map->values()[p], -head0[0][p] / 4.0f, 1e-6) << "patch " << p;
    EXPECT_FALSE(map->title().contains("unchanged")) << map->title().toStdString();
    if (const QString dir = qEnvironmentVariable("AS_CAPTION_MASK_SCREENSHOTS"); !dir.isEmpty())
        for (const QSize size : { QSize(1024, 700), QSize(1280, 800) }) {
            window.resize(size);
            QTest::qWait(300);
            EXPECT_TRUE(window.grab().save(
                QString("%1/caption-diff-map-%2x%3.png").arg(dir).arg(size.width()).arg(size.height())));
        }

    // Layer 0 comes before the removed head: every word's map is unchanged, exactly.
    panel->setHead(0, -1);
    for (int w = 0; w < 3; ++w) {
        panel->selectWord(w);
        EXPECT_EQ(map->values(), std::vector<float>(static_cast<size_t>(masked.grid.patches()), 0.0f)) << "word " << w;
        EXPECT_TRUE(map->title().contains("unchanged")) << map->title().toStdString();
    }

    panel->undoMask();
    QTRY_VERIFY_WITH_TIMEOUT(!panel->state()->comparison.has_value(), kTimeoutMs);
    EXPECT_TRUE(map->isHidden());
}

} // namespace
} // namespace attn::ui
