// SPDX-License-Identifier: MIT
// Head importance and greedy pruning of a transformer translator on the bundled demo (MarianMT layout) and its
// held-out sentence pairs: teacher-forced loss of the references, exact match of greedy translations, and
// `attnscope-cli prune` over a tab-separated file of those pairs.
#include "model_test_util.h"

#include "analysis/sentence_pairs.h"
#include "analysis/translation_importance.h"
#include "intervention/intervention.h"
#include "session/translator.h"

#include <cmath>
#include <fstream>

namespace attn::test {
namespace {

const std::string kMarian = std::string(AS_SOURCE_DIR) + "/resources/models/demo-translate-marian";
constexpr size_t kPairs = 24; // of the 200 held-out pairs: every kind of sentence, a few seconds of passes
// The independent route decodes one position at a time over the cache where the code under test decodes the whole
// reference at once: logits agree within float rounding (a few 1e-6), and an importance is a difference of two means
// stored as float.
constexpr double kLogProbTolerance = 1e-5;

/// The first `count` held-out pairs as a tab-separated file in `dir` (what `prune --corpus` reads); its path.
std::string writePairs(const std::string& dir, size_t count)
{
    std::ifstream en(kMarian + "/heldout.en"), fr(kMarian + "/heldout.fr");
    if (!en || !fr) throw Error(kMarian, "heldout.en / heldout.fr missing");
    const std::string path = dir + "/pairs.tsv";
    std::ofstream out(path);
    std::string source, reference;
    for (size_t i = 0; i < count && std::getline(en, source) && std::getline(fr, reference); ++i)
        out << source << "\t" << reference << "\n";
    return path;
}

struct Demo {
    Translator translator { kMarian };
    std::vector<SentencePair> pairs = readSentencePairs(writePairs(makeTempDir("pairs"), kPairs), translator);
    const EncoderDecoderModel& model = *translator.transformer();
};

const Demo& demo()
{
    static const Demo d;
    return d;
}

/// Pooled mean log-probability of the references under `mask`, one decoder position at a time over the cache, the
/// log-softmax summed here in double: not the code under test.
double stepwiseLogProb(const Demo& d, const Tensor& mask)
{
    Intervention removal;
    removal.headMask = mask;
    ForwardOptions options;
    options.wantAttention = false;
    options.intervention = &removal;
    double sum = 0.0;
    int64_t tokens = 0;
    for (const SentencePair& p : d.pairs) {
        const auto encoding = d.model.encode({ p.source, {} }, options);
        KvCache cache = d.model.newDecoderCache();
        int64_t previous = d.model.decoderStartToken();
        for (const int64_t next : p.target) {
            const Tensor logits = d.model.decode(*encoding, cache, { previous }, options).logits;
            double top = -INFINITY, z = 0.0;
            for (const float x : logits.storage())
                top = std::max(top, static_cast<double>(x));
            for (const float x : logits.storage())
                z += std::exp(x - top);
            sum += logits.data()[next] - top - std::log(z);
            previous = next;
            ++tokens;
        }
    }
    return sum / static_cast<double>(tokens);
}

/// Share of pairs whose greedy translation is the reference, from teacher forcing alone: greedy decoding reproduces
/// the reference exactly when every teacher-forced position's most likely token is the reference's next one.
double teacherForcedExactMatch(const Demo& d, const Tensor& mask)
{
    Intervention removal;
    removal.headMask = mask;
    ForwardOptions options;
    options.wantAttention = false;
    options.intervention = &removal;
    int64_t exact = 0;
    for (const SentencePair& p : d.pairs) {
        std::vector<int64_t> inputs { d.model.decoderStartToken() };
        inputs.insert(inputs.end(), p.target.begin(), p.target.end() - 1);
        KvCache cache = d.model.newDecoderCache();
        const Tensor logits = d.model.decode(*d.model.encode({ p.source, {} }, options), cache, inputs, options).logits;
        const int64_t v = logits.dim(1);
        bool all = true;
        for (size_t i = 0; i < p.target.size(); ++i) {
            const float* row = logits.data() + static_cast<int64_t>(i) * v;
            all = all && std::max_element(row, row + v) - row == p.target[i];
        }
        exact += all ? 1 : 0;
    }
    return static_cast<double>(exact) / static_cast<double>(d.pairs.size());
}

TEST(TranslationImportance, EachHeadsImportanceEqualsAStepwiseRunWithoutIt)
{
    const Demo& d = demo();
    ASSERT_EQ(d.pairs.size(), kPairs);
    const Seq2SeqHeadRows rows = d.model.headRows();
    ASSERT_EQ(rows.rows(), 6) << "2 encoder, 2 decoder and 2 cross-attention layers";
    double unmodified = 0.0;
    const Tensor importance = translationHeadImportance(d.model, d.pairs, {}, &unmodified);
    ASSERT_EQ(importance.shape(), (Shape { 6, 4 }));
    const double reference = stepwiseLogProb(d, {});
    EXPECT_NEAR(unmodified, reference, kLogProbTolerance);
    for (int64_t r = 0; r < rows.rows(); ++r)
        for (int64_t h = 0; h < rows.heads; ++h) {
            const double removed = stepwiseLogProb(d, seq2seqHeadMaskWith(d.model, { { r, h } }, 0.0f));
            EXPECT_NEAR(importance.data()[r * rows.heads + h], reference - removed, kLogProbTolerance)
                << rows.rowName(r) << " H" << h;
        }
}

TEST(TranslationImportance, TheCurveIsTheLossAndExactMatchOfEachPrefixOfTheOrder)
{
    const Demo& d = demo();
    double unmodified = 0.0;
    const Tensor importance = translationHeadImportance(d.model, d.pairs, {}, &unmodified);
    const PruningCurve curve = translationPruning(d.model, d.pairs, importance, {});
    const size_t heads = 24;
    ASSERT_EQ(curve.order, pruningOrder(importance));
    ASSERT_EQ(curve.loss.size(), heads + 1);
    ASSERT_EQ(curve.accuracy.size(), heads + 1);
    EXPECT_TRUE(curve.copyAccuracy.empty());
    // Removing no head is the unmodified model (a mask of ones computes the same bits as none).
    EXPECT_EQ(curve.loss.front(), -unmodified);
    EXPECT_EQ(translationScore(d.model, d.pairs, seq2seqHeadMaskWith(d.model, {}, 0.0f), {}, true).logProb,
        translationScore(d.model, d.pairs, {}, {}, true).logProb);
    EXPECT_EQ(curve.accuracy.front(), 1.0) << "the demo translates every held-out sentence exactly (README)";
    std::vector<HeadRef> removed;
    for (size_t k = 0; k <= heads; ++k) {
        if (k > 0) removed.push_back(curve.order[k - 1]);
        const Tensor mask = seq2seqHeadMaskWith(d.model, removed, 0.0f);
        EXPECT_NEAR(curve.loss[k], -stepwiseLogProb(d, mask), kLogProbTolerance) << k << " heads removed";
        EXPECT_EQ(curve.accuracy[k], teacherForcedExactMatch(d, mask)) << k << " heads removed";
        std::printf("%2zu heads removed: loss %.4f nats, exact match %.3f\n", k, curve.loss[k], curve.accuracy[k]);
    }
    EXPECT_GT(curve.loss.back(), curve.loss.front() + 1.0);
    EXPECT_EQ(curve.accuracy.back(), 0.0) << "with no attention left the references are not reproduced";
}

TEST(TranslationImportance, RemovingTheCrossAttentionChangesTheGreedyTranslation)
{
    const Demo& d = demo();
    const Seq2SeqHeadRows rows = d.model.headRows();
    const std::vector<int64_t> source
        = d.translator.source("the happy girls like the white houses next to some black cats .").ids;
    std::vector<HeadRef> cross;
    for (int64_t l = 0; l < rows.decoderLayers; ++l)
        for (int64_t h = 0; h < rows.heads; ++h)
            cross.push_back({ rows.crossRow(l), h });
    const auto translate = [&](const Tensor& mask) {
        Intervention removal;
        removal.headMask = mask;
        ForwardOptions options;
        options.intervention = mask.empty() ? nullptr : &removal;
        return greedyDecode(d.model, *d.model.encode({ source, {} }, options), 40, true, nullptr, options);
    };
    const std::vector<int64_t> clean = translate({});
    EXPECT_EQ(d.translator.text(clean), "les filles contentes aiment les maisons blanches à côté de des chats noirs .");
    EXPECT_EQ(translate(seq2seqHeadMaskWith(d.model, {}, 0.0f)), clean);
    const std::vector<int64_t> blind = translate(seq2seqHeadMaskWith(d.model, cross, 0.0f));
    std::printf("unmodified:          %s\nno cross-attention:  %s\n", d.translator.text(clean).c_str(),
        d.translator.text(blind).c_str());
    EXPECT_NE(blind, clean);
}

TEST(TranslationImportance, ThePruneCommandEqualsTheEngineOverATabSeparatedFile)
{
    const Demo& d = demo();
    const std::string dir = makeTempDir("prune-marian");
    const std::string corpus = writePairs(dir, kPairs);
    runCli("prune " + kMarian + " --corpus " + corpus + " --out " + dir);
    const Tensor importance = translationHeadImportance(d.model, d.pairs, {});
    const Tensor written = readNpy(dir + "/importance.npy");
    ASSERT_EQ(written.shape(), importance.shape());
    for (int64_t i = 0; i < importance.numel(); ++i)
        EXPECT_NEAR(written.data()[i], importance.data()[i], 1e-6) << i;
    nlohmann::json report;
    std::ifstream(dir + "/curve.json") >> report;
    EXPECT_EQ(report.at("inputs"), kPairs);
    EXPECT_EQ(
        report.at("mask_rows"), nlohmann::json({ "enc L0", "enc L1", "dec L0", "dec L1", "cross L0", "cross L1" }));
    const PruningCurve curve = translationPruning(d.model, d.pairs, importance, {});
    ASSERT_EQ(report.at("accuracy").size(), curve.accuracy.size());
    for (size_t k = 0; k < curve.accuracy.size(); ++k) {
        EXPECT_DOUBLE_EQ(report.at("accuracy")[k].get<double>(), curve.accuracy[k]) << k;
        EXPECT_NEAR(report.at("loss")[k].get<double>(), curve.loss[k], 1e-6) << k;
    }
    EXPECT_NE(report.at("accuracy_meaning").get<std::string>().find("exact match"), std::string::npos);
}

TEST(TranslationImportance, BadPairFilesAndAnRnnTranslatorAreRefusedByName)
{
    const std::string dir = makeTempDir("prune-marian-bad");
    std::ofstream(dir + "/pairs.tsv") << "the door likes the door .\tla porte aime la porte .\n\nthe white tree .\n";
    std::string out = runCli("prune " + kMarian + " --corpus " + dir + "/pairs.tsv --out " + dir, 1);
    EXPECT_NE(out.find(dir + "/pairs.tsv:3: no tab"), std::string::npos) << out;
    std::ofstream(dir + "/empty.tsv") << "\n\n";
    out = runCli("prune " + kMarian + " --corpus " + dir + "/empty.tsv --out " + dir, 1);
    EXPECT_NE(out.find("has no sentence pair"), std::string::npos) << out;
    const std::string gru = std::string(AS_SOURCE_DIR) + "/resources/models/demo-translate-gru";
    out = runCli("prune " + gru + " --corpus " + dir + "/pairs.tsv --out " + dir, 1);
    EXPECT_NE(out.find("no heads to remove"), std::string::npos) << out;
    EXPECT_THROW(translationHeadImportance(demo().model, {}, {}), Error);
}

} // namespace
} // namespace attn::test
