// SPDX-License-Identifier: MIT
// Step-by-step decoding through the GUI's DecodeController matches `attnscope-cli generate` token for token (greedy
// and seeded sampling), and the attention of every step equals an independent engine Session's.
#include "controller/engine_controller.h"
#include "decode/decode_controller.h"
#include "engine_test_support.h"
#include "model/model_loader.h"
#include "session/session.h"
#include "support/shared_data.h"
#include "ui_test_support.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

#include <filesystem>

namespace attn::ui {
namespace {

/// A copy of a model without its tokenizer files, so that `generate` prints token ids we can compare exactly.
std::string withoutTokenizer(const std::string& tag, const std::vector<std::string>& files)
{
    const std::string dir = test::makeTempDir("decode-" + tag);
    for (const std::string& f : files) {
        const std::string src = test::sharedPath(f);
        std::filesystem::copy_file(src, std::filesystem::path(dir) / std::filesystem::path(src).filename());
    }
    return dir;
}

std::string stories()
{
    return withoutTokenizer("stories", { "models/stories260K/stories260K.bin" }) + "/stories260K.bin";
}
std::string gpt2()
{
    return withoutTokenizer("gpt2", { "fixtures/hf-tiny/gpt2/config.json", "fixtures/hf-tiny/gpt2/model.safetensors" });
}
std::string llama()
{
    return test::sharedPath("fixtures/hf-tiny/llama"); // has no tokenizer files
}

std::string joinIds(const std::vector<int64_t>& ids)
{
    std::string out;
    for (int64_t id : ids)
        out += (out.empty() ? "" : ",") + std::to_string(id);
    return out;
}

/// Token ids printed by `attnscope-cli generate MODEL --tokens PROMPT --max-new-tokens N [sampling]`.
std::vector<int64_t> cliTokens(
    const std::string& model, const std::vector<int64_t>& prompt, int newTokens, const SamplerOptions& o)
{
    QStringList args { "generate", QString::fromStdString(model), "--tokens", QString::fromStdString(joinIds(prompt)),
        "--max-new-tokens", QString::number(newTokens), "--temperature", QString::number(o.temperature), "--top-p",
        QString::number(o.topP), "--top-k", QString::number(o.topK), "--seed", QString::number(o.seed) };
    QProcess cli;
    cli.start(QString::fromStdString(test::cliPath()), args);
    EXPECT_TRUE(cli.waitForFinished(60000));
    EXPECT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();
    std::vector<int64_t> ids;
    for (const QByteArray& word : cli.readAllStandardOutput().simplified().split(' '))
        if (!word.isEmpty()) ids.push_back(word.toLongLong());
    return ids;
}

void openModel(DecodeController& c, const std::string& path)
{
    QSignalSpy opened(&c, &DecodeController::opened);
    QSignalSpy failed(&c, &DecodeController::failed);
    c.open(QString::fromStdString(path));
    QTRY_VERIFY_WITH_TIMEOUT(opened.count() == 1 || failed.count() > 0, 30000);
    ASSERT_EQ(failed.count(), 0) << failed.at(0).at(0).toString().toStdString();
}

/// Prompt, then `newTokens` single Step requests, each awaited; stops early when the model ends the text.
std::vector<int64_t> guiTokens(
    DecodeController& c, const std::vector<int64_t>& prompt, int newTokens, const SamplerOptions& o)
{
    QSignalSpy ended(&c, &DecodeController::ended);
    c.setSampling(o);
    c.promptIds(prompt);
    EXPECT_TRUE(QTest::qWaitFor([&] { return c.steps().size() == prompt.size(); }, 10000));
    for (int i = 0; i < newTokens && ended.isEmpty(); ++i) {
        const size_t before = c.steps().size();
        c.step();
        EXPECT_TRUE(QTest::qWaitFor([&] { return c.steps().size() == before + 1 || !ended.isEmpty(); }, 10000));
    }
    std::vector<int64_t> ids;
    for (const DecodeStepPtr& s : c.steps())
        ids.push_back(s->token.id);
    return ids;
}

struct Case {
    const char* name;
    std::string (*path)();
    std::vector<int64_t> prompt;
};

const Case kCases[] = {
    { "stories260K", stories, { 1 } },
    { "gpt2", gpt2, { 10, 200, 33 } },
    { "llama", llama, { 1, 42, 7 } },
};

TEST(DecodeController, GreedyAndSampledStepsMatchTheCli)
{
    SamplerOptions greedy;
    greedy.seed = 1;
    SamplerOptions sampled;
    sampled.temperature = 0.9f;
    sampled.topP = 0.9f;
    sampled.seed = 133742;
    SamplerOptions topK = sampled;
    topK.topK = 20;
    topK.topP = 1.0f;
    topK.seed = 7;
    for (const Case& k : kCases) {
        const std::string path = k.path();
        DecodeController c;
        openModel(c, path);
        for (const SamplerOptions& o : { greedy, sampled, topK }) {
            SCOPED_TRACE(std::string(k.name) + " T=" + std::to_string(o.temperature) + " k=" + std::to_string(o.topK));
            const int n = 40;
            const std::vector<int64_t> expected = cliTokens(path, k.prompt, n, o);
            ASSERT_GT(expected.size(), k.prompt.size());
            EXPECT_EQ(guiTokens(c, k.prompt, n, o), expected);
        }
    }
}

TEST(DecodeController, AttentionOfEveryStepEqualsTheEngine)
{
    for (const Case& k : kCases) {
        SCOPED_TRACE(k.name);
        const std::string path = k.path();
        DecodeController c;
        openModel(c, path);
        SamplerOptions o;
        o.seed = 1;
        const std::vector<int64_t> ids = guiTokens(c, k.prompt, 24, o);
        // The reference: a separate Session fed the same tokens, capturing every step's rows.
        Session reference(loadModel(path));
        std::vector<std::shared_ptr<const StepResult>> captured;
        for (size_t t = 0; t < ids.size(); ++t) {
            captured.push_back(reference.step(ids[t]));
            // These models' rows are derivable: the steps keep none, so a step costs the same with no view open.
            EXPECT_TRUE(c.steps()[t]->attention.empty()) << "step " << t;
        }
        // What the heatmap and the strip are given when the timeline is scrubbed to step t: rows derived from the
        // engine's Q and K. Those are recomputed over all positions at once, so the contract is issue #3's
        // stepping-vs-full-forward tolerance, 1e-5 (the batched and the per-step products sum in different orders).
        for (const int64_t positions : { int64_t(1), int64_t(ids.size() / 2), static_cast<int64_t>(ids.size()) }) {
            QSignalSpy ready(&c, &DecodeController::snapshotReady);
            QSignalSpy stepRows(&c, &DecodeController::stepRowsReady);
            c.requestSnapshot(positions);
            QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 10000);
            ASSERT_EQ(stepRows.count(), 1) << "the strip's rows come before the snapshot";
            EXPECT_EQ(stepRows.at(0).at(0).toLongLong(), positions - 1);
            const auto rows = stepRows.at(0).at(1).value<StepRowsPtr>();
            const StepResult& step = *captured[static_cast<size_t>(positions - 1)];
            ASSERT_EQ(rows->size(), step.attention.size());
            for (size_t l = 0; l < step.attention.size(); ++l) {
                ASSERT_EQ((*rows)[l].numel(), step.attention[l].numel());
                EXPECT_LT(
                    test::maxAbsDiff((*rows)[l].data(), step.attention[l].data(), step.attention[l].numel()), 1e-5)
                    << "strip of position " << positions - 1 << " layer " << l;
            }
            const auto snapshot = ready.at(0).at(1).value<SnapshotPtr>();
            ASSERT_EQ(snapshot->numKeys(), positions);
            // These models' attention is derivable: the heatmap reads it through a source, no matrix is assembled.
            EXPECT_FALSE(snapshot->holdsMatrices());
            for (int64_t l = 0; l < snapshot->numLayers(); ++l)
                for (int64_t h = 0; h < snapshot->numHeads(); ++h) {
                    const Tensor rows = reference.attentionRows(l, h, 0, positions);
                    const auto shown = snapshot->rows(l, h, 0, positions);
                    for (int64_t q = 0; q < positions; ++q)
                        EXPECT_LT(test::maxAbsDiff(shown->data() + q * positions, rows.data() + q * reference.length(),
                                      positions),
                            1e-5)
                            << "positions " << positions << " layer " << l << " head " << h << " row " << q;
                }
        }
    }
}

TEST(DecodeController, TheHeatmapsAttentionIsDerivedOnTheChosenBackendAndOutlivesASwitch)
{
    EngineController engine;
    QSignalSpy backend(&engine, &EngineController::backendChanged);
    engine.setBackend(BackendChoice::Vulkan);
    ASSERT_TRUE(QTest::qWaitFor([&] { return backend.count() == 1; }, 30000));
    ASSERT_TRUE(engine.backendDescription().startsWith("vulkan"))
        << "CI has lavapipe; got " << engine.backendDescription().toStdString();
    DecodeController c(&engine);
    const std::string path = stories();
    openModel(c, path);
    SamplerOptions o;
    o.seed = 1;
    const std::vector<int64_t> ids = guiTokens(c, { 1 }, 12, o);
    const auto positions = static_cast<int64_t>(ids.size());
    Session reference(loadModel(path));
    for (int64_t id : ids)
        reference.step(id);
    QSignalSpy ready(&c, &DecodeController::snapshotReady);
    c.requestSnapshot(positions);
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 10000);
    const auto snapshot = ready.at(0).at(1).value<SnapshotPtr>();
    ASSERT_FALSE(snapshot->holdsMatrices());
    // The heatmap reads a head: the device computes it (CPU parity bound).
    const uint64_t before = test::engineSubmits(engine, &c);
    const auto onDevice = snapshot->rows(1, 2, 0, positions);
    EXPECT_GT(test::engineSubmits(engine, &c), before) << "derived on the CPU, not on the backend chosen";
    EXPECT_LE(test::maxAbsDiff(onDevice->data(), reference.attentionRows(1, 2, 0, positions).data(), onDevice->numel()),
        1e-5);
    // View > Compute backend > CPU while that snapshot is shown: it goes on deriving on the device it was made with,
    // which it keeps alive.
    engine.setBackend(BackendChoice::Cpu);
    ASSERT_TRUE(QTest::qWaitFor([&] { return backend.count() == 2; }, 30000));
    ASSERT_TRUE(engine.backendDescription().startsWith("cpu")) << engine.backendDescription().toStdString();
    const auto later = snapshot->rows(0, 3, 0, positions);
    EXPECT_LE(
        test::maxAbsDiff(later->data(), reference.attentionRows(0, 3, 0, positions).data(), later->numel()), 1e-5);
}

TEST(DecodeController, ASnapshotOfStepsTheTimelineRewoundMeanwhileIsDropped)
{
    // The snapshot is asked for with the steps the GUI holds, after a Back that the engine runs first: those steps
    // keep no rows (stories260K's are derived) and the timeline no longer holds them, so nothing can show them. The
    // request is dropped (it used to assemble rows the steps do not have), and the next one answers.
    DecodeController c;
    openModel(c, stories());
    SamplerOptions greedy;
    const size_t n = guiTokens(c, { 1 }, 6, greedy).size();
    QSignalSpy ready(&c, &DecodeController::snapshotReady);
    QSignalSpy failed(&c, &DecodeController::failed);
    c.back();
    c.requestSnapshot(static_cast<int64_t>(n)); // still n steps here: Back has not come back yet
    QTRY_COMPARE_WITH_TIMEOUT(c.steps().size(), n - 1, 10000);
    QTest::qWait(100);
    EXPECT_EQ(ready.count(), 0) << "a snapshot of positions the timeline no longer holds";
    EXPECT_EQ(failed.count(), 0);
    c.requestSnapshot(static_cast<int64_t>(n - 1));
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 10000);
    EXPECT_EQ(ready.at(0).at(0).toLongLong(), static_cast<qint64>(n - 1));
}

TEST(DecodeController, BackAndForceBranchFromAnEarlierPosition)
{
    DecodeController c;
    openModel(c, stories());
    SamplerOptions o;
    o.seed = 1;
    const std::vector<int64_t> ids = guiTokens(c, { 1 }, 12, o);
    ASSERT_EQ(ids.size(), 13u);
    c.back();
    QTRY_COMPARE_WITH_TIMEOUT(c.steps().size(), 12u, 10000);
    for (size_t i = 0; i < 12; ++i)
        EXPECT_EQ(c.steps()[i]->token.id, ids[i]);
    // Greedy again after Back reproduces the removed token.
    c.step();
    QTRY_COMPARE_WITH_TIMEOUT(c.steps().size(), 13u, 10000);
    EXPECT_EQ(c.steps()[12]->token.id, ids[12]);
    EXPECT_EQ(c.steps()[12]->origin, TokenOrigin::Greedy);


    // Force the second-best candidate at position 5; the rest continues greedily from the branch.
    const DecodeStepPtr at5 = c.steps()[5];
    ASSERT_GE(at5->candidates.size(), 2u);
    ASSERT_EQ(at5->candidates[0].token.id, ids[5]);
    const int64_t other = at5->candidates[1].token.id;
    c.force(5, other);
    QTRY_VERIFY_WITH_TIMEOUT(c.steps().size() == 6 && c.steps()[5]->token.id == other, 10000);
    EXPECT_EQ(c.steps()[5]->origin, TokenOrigin::Forced);
    EXPECT_FLOAT_EQ(c.steps()[5]->probability, at5->candidates[1].probability);
    for (int i = 0; i < 4; ++i)
        c.step();
    QTRY_COMPARE_WITH_TIMEOUT(c.steps().size(), 10u, 10000);
    std::vector<int64_t> branch(ids.begin(), ids.begin() + 5);
    branch.push_back(other);
    Session reference(loadModel(stories()));
    for (int64_t id : branch)
        reference.step(id);
    for (size_t i = 6; i < 10; ++i) {
        const auto r = reference.step(branch.back());
        branch.push_back(argmax(r->logits.data(), r->logits.numel()));
        EXPECT_EQ(c.steps()[i]->token.id, branch.back()) << "position " << i;
    }
}

TEST(DecodeController, PromptTokensCannotBeForcedOver)
{
    DecodeController c;
    openModel(c, stories());
    const std::vector<int64_t> ids = guiTokens(c, { 1, 400, 500 }, 3, SamplerOptions {});
    ASSERT_EQ(ids.size(), 6u);
    QSignalSpy failed(&c, &DecodeController::failed);
    c.force(2, ids[4]); // the prompt's last token
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 5000);
    EXPECT_TRUE(failed.at(0).at(0).toString().contains("part of the prompt")) << failed.at(0).at(0).toString().toStdString();
    ASSERT_EQ(c.steps().size(), 6u); // nothing was discarded
    for (size_t i = 0; i < ids.size(); ++i)
        EXPECT_EQ(c.steps()[i]->token.id, ids[i]);
    const int64_t other = c.steps()[3]->candidates.at(1).token.id; // the first generated position can be forced
    c.force(3, other);
    QTRY_VERIFY_WITH_TIMEOUT(c.steps().size() == 4 && c.steps()[3]->token.id == other, 10000);
    EXPECT_EQ(c.steps()[3]->origin, TokenOrigin::Forced);
    EXPECT_EQ(failed.count(), 1);
}

TEST(DecodeController, ForcingKeepsTheOldTimelineAsABranchToGoBackTo)
{
    DecodeController c;
    openModel(c, stories());
    SamplerOptions o;
    o.temperature = 1.0f; // sampled tokens: going back must restore the sampler too, not only the ids
    o.topP = 0.9f;
    o.seed = 133742;
    std::vector<int64_t> reference;
    {
        DecodeController straight; // the same sampling without any detour
        openModel(straight, stories());
        reference = guiTokens(straight, { 1, 400, 500 }, 12, o);
    }
    ASSERT_EQ(reference.size(), 15u);
    const std::vector<int64_t> original = guiTokens(c, { 1, 400, 500 }, 10, o);
    ASSERT_EQ(original, std::vector<int64_t>(reference.begin(), reference.begin() + 13));
    QSignalSpy branches(&c, &DecodeController::branchesChanged);
    const auto& candidates = c.steps()[6]->candidates;
    const int64_t other = candidates.at(0).token.id == original[6] ? candidates.at(1).token.id : candidates.at(0).token.id;
    c.force(6, other);
    QTRY_VERIFY_WITH_TIMEOUT(c.steps().size() == 7 && c.steps()[6]->token.id == other, 10000);
    ASSERT_EQ(c.branches().size(), 1u);
    EXPECT_EQ(branches.count(), 1);
    for (int i = 0; i < 3; ++i)
        c.step();
    QTRY_COMPARE_WITH_TIMEOUT(c.steps().size(), 10u, 10000);
    std::vector<int64_t> forcedTimeline;
    for (const DecodeStepPtr& s : c.steps())
        forcedTimeline.push_back(s->token.id);

    c.switchToBranch(0); // back to the timeline before the force
    QTRY_VERIFY_WITH_TIMEOUT(c.steps().size() == original.size() && c.steps()[6]->token.id == original[6], 10000);
    for (size_t i = 0; i < original.size(); ++i)
        EXPECT_EQ(c.steps()[i]->token.id, original[i]) << "position " << i;
    EXPECT_EQ(c.steps()[7]->origin, TokenOrigin::Sampled); // origins come back too
    ASSERT_EQ(c.branches().size(), 1u); // the forced timeline is the branch now
    // Stepping on continues the original sampling exactly: the sampler state came back with the tokens.
    c.step();
    c.step();
    QTRY_COMPARE_WITH_TIMEOUT(c.steps().size(), 15u, 10000);
    for (size_t i = 0; i < reference.size(); ++i)
        EXPECT_EQ(c.steps()[i]->token.id, reference[i]) << "position " << i;
    c.switchToBranch(0);
    QTRY_VERIFY_WITH_TIMEOUT(c.steps().size() == forcedTimeline.size() && c.steps()[6]->token.id == other, 10000);
    for (size_t i = 0; i < forcedTimeline.size(); ++i)
        EXPECT_EQ(c.steps()[i]->token.id, forcedTimeline[i]) << "position " << i;
    c.promptIds({ 1, 400 }); // another prompt: its branches are its own
    QTRY_VERIFY_WITH_TIMEOUT(c.branches().empty() && c.steps().size() == 2, 10000);
}

TEST(DecodeController, BackRewindsTheSamplerSoSampledTokensRepeat)
{
    DecodeController c;
    openModel(c, stories());
    SamplerOptions o;
    o.temperature = 1.0f;
    o.topP = 0.9f;
    o.seed = 133742;
    const std::vector<int64_t> ids = guiTokens(c, { 1 }, 20, o);
    ASSERT_EQ(ids.size(), 21u);
    for (int i = 0; i < 8; ++i)
        c.back();
    QTRY_COMPARE_WITH_TIMEOUT(c.steps().size(), 13u, 10000);
    for (int i = 0; i < 8; ++i)
        c.step();
    QTRY_COMPARE_WITH_TIMEOUT(c.steps().size(), 21u, 10000);
    for (size_t i = 13; i < 21; ++i)
        EXPECT_EQ(c.steps()[i]->token.id, ids[i]) << "position " << i;
}

TEST(DecodeController, ErrorsAreMessages)
{
    DecodeController c;
    QSignalSpy failed(&c, &DecodeController::failed);
    c.step();
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 5000);
    EXPECT_TRUE(failed.at(0).at(0).toString().contains("no model is open"));
    c.open(QString::fromStdString(test::sharedPath("fixtures/hf-tiny/bert")));
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 2, 30000);
    EXPECT_TRUE(failed.at(1).at(0).toString().contains("decoder")) << failed.at(1).at(0).toString().toStdString();
    openModel(c, llama());
    c.force(3, 0); // nothing decoded yet
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 3, 5000);
    c.promptIds({ 1, 100000 });
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 4, 5000);
    EXPECT_TRUE(c.steps().empty());
}

} // namespace
} // namespace attn::ui
