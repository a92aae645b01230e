// SPDX-License-Identifier: MIT
// DecodeTimeline::prompt runs the prompt as batched forwards: what it records, and every step decoded after it, equals
// the one-at-a-time path (the first token as the prompt, each further one appended by force(length()), which runs one
// position as step() does) for every decoder family, within the stepping-vs-whole-pass rounding.
#include "attention_source/attention_source.h"
#include "session/decode_timeline.h"
#include "support/shared_data.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace attn {
namespace {

// Both paths run the same float32 ops over different row counts (GEMM blocking differs): test_models_families bounds
// their logits by 1e-4 and attention by 1e-5. Probabilities are a softmax of the logits, whose derivative is below 1,
// so 1e-4 holds them too; the entropy in bits moves by up to |log2 p| times that, hence 1e-3. Key and value norms
// are sums of squares of cache rows: 1e-5 relative.
constexpr double kProbability = 1e-4;
constexpr double kEntropyBits = 1e-3;
constexpr double kAttention = 1e-5;
constexpr double kNorm = 1e-5;

struct Decoded {
    std::unique_ptr<DecodeTimeline> timeline;
    int64_t forwards = 0; ///< forward passes the prompt ran
};

/// `ids` decoded greedily for `newTokens` more, the prompt batched or one position at a time.
Decoded decode(const std::string& path, const std::vector<int64_t>& ids, int newTokens, bool batched)
{
    auto layers = std::make_shared<int64_t>(0);
    ForwardOptions options;
    options.layerDone = [layers](int64_t, int64_t) { return ++*layers, true; };
    Decoded d { openDecodeTimeline(path, nullptr, options) };
    DecodeTimeline& t = *d.timeline;
    if (batched) {
        t.prompt(ids);
    } else {
        t.prompt({ ids[0] });
        for (size_t i = 1; i < ids.size(); ++i)
            t.force(t.length(), ids[i]);
    }
    d.forwards = *layers / t.info().numLayers;
    for (int i = 0; i < newTokens && t.step(); ++i) { }
    return d;
}

void expectNear(const std::vector<float>& a, const std::vector<float>& b, const char* what, int64_t position)
{
    ASSERT_EQ(a.size(), b.size()) << what << " at " << position;
    for (size_t i = 0; i < a.size(); ++i)
        EXPECT_NEAR(a[i], b[i], kNorm * std::max(1.0f, std::abs(b[i]))) << what << " " << i << " at " << position;
}

void expectSameStep(const DecodeStep& a, const DecodeStep& b, bool prompt)
{
    const int64_t p = b.position;
    ASSERT_EQ(a.position, p);
    EXPECT_EQ(a.token.id, b.token.id) << "position " << p;
    EXPECT_EQ(a.origin, prompt ? TokenOrigin::Prompt : b.origin) << "position " << p;
    EXPECT_EQ(a.samplerState, b.samplerState) << "position " << p;
    EXPECT_EQ(a.backend, b.backend);
    ASSERT_EQ(a.candidates.size(), b.candidates.size()) << "position " << p;
    if (p == 0) {
        EXPECT_TRUE(std::isnan(a.probability) && std::isnan(a.entropyBits));
    } else {
        EXPECT_NEAR(a.probability, b.probability, kProbability) << "position " << p;
        EXPECT_NEAR(a.entropyBits, b.entropyBits, kEntropyBits) << "position " << p;
    }
    for (size_t r = 0; r < b.candidates.size(); ++r) {
        const float pr = b.candidates[r].probability;
        EXPECT_NEAR(a.candidates[r].probability, pr, kProbability) << "rank " << r << " at " << p;
        // The ids of a rank agree unless a neighbour is within rounding of it (then either order is right).
        const bool apart = (r == 0 || b.candidates[r - 1].probability - pr > 2 * kProbability)
            && (r + 1 == b.candidates.size() || pr - b.candidates[r + 1].probability > 2 * kProbability);
        if (apart) {
            EXPECT_EQ(a.candidates[r].token.id, b.candidates[r].token.id) << "rank " << r << " at " << p;
        }
    }
    expectNear(a.keyNorms, b.keyNorms, "key norm", p);
    expectNear(a.valueNorms, b.valueNorms, "value norm", p);
    ASSERT_EQ(a.attention.size(), b.attention.size()) << "position " << p;
    for (size_t l = 0; l < b.attention.size(); ++l) {
        ASSERT_EQ(a.attention[l].shape(), b.attention[l].shape()) << "layer " << l << " at " << p;
        for (int64_t i = 0; i < b.attention[l].numel(); ++i)
            ASSERT_NEAR(a.attention[l].data()[i], b.attention[l].data()[i], kAttention)
                << "layer " << l << " entry " << i << " at " << p;
    }
}

/// Batched prompt then greedy steps against one position at a time: every record, the derived attention, and the
/// number of forwards the prompt took.
void expectBatchedEqualsOneAtATime(
    const std::string& path, int64_t promptLength, int newTokens, int64_t expectedForwards)
{
    SCOPED_TRACE(path);
    const int64_t vocab = openDecodeTimeline(path)->info().vocabSize;
    std::vector<int64_t> ids { 1 };
    for (int64_t i = 1; i < promptLength; ++i)
        ids.push_back((i * 37 + 5) % vocab);
    const Decoded batched = decode(path, ids, newTokens, true);
    const Decoded single = decode(path, ids, newTokens, false);
    EXPECT_EQ(batched.forwards, expectedForwards);
    EXPECT_EQ(single.forwards, promptLength);
    const auto& a = batched.timeline->steps();
    const auto& b = single.timeline->steps();
    ASSERT_EQ(a.size(), b.size()) << "the greedy continuations end at different lengths";
    ASSERT_GT(a.size(), static_cast<size_t>(promptLength)) << "nothing was decoded after the prompt";
    for (size_t p = 0; p < b.size(); ++p)
        expectSameStep(*a[p], *b[p], p < static_cast<size_t>(promptLength));

    const auto derivedA = batched.timeline->derivedAttention(batched.timeline->length());
    const auto derivedB = single.timeline->derivedAttention(single.timeline->length());
    ASSERT_EQ(derivedA == nullptr, derivedB == nullptr);
    if (!derivedA) return; // the steps' captured rows were compared above
    const int64_t n = derivedB->numQueries();
    for (int64_t l = 0; l < derivedB->numLayers(); ++l)
        for (int64_t h = 0; h < derivedB->numHeads(); ++h) {
            const auto ra = derivedA->rows(l, h, 0, n), rb = derivedB->rows(l, h, 0, n);
            for (int64_t i = 0; i < n * n; ++i)
                ASSERT_NEAR(ra->data()[i], rb->data()[i], kAttention)
                    << "layer " << l << " head " << h << " entry " << i;
        }
}

TEST(DecodePrefill, BatchedPromptEqualsOneAtATimeForEveryDecoderFamily)
{
    // llama2.c (a 300-token prompt in one forward), GPT-2, Llama, a sliding window, MoE routing, GQA with biases, and
    // gemma2, whose soft-capped rows are captured per step rather than derived.
    expectBatchedEqualsOneAtATime(test::sharedPath("models/stories260K/stories260K.bin"), 300, 40, 1);
    for (const char* family : { "gpt2", "llama", "mistral", "mixtral", "qwen2", "gemma2" })
        expectBatchedEqualsOneAtATime(test::sharedPath(std::string("fixtures/hf-tiny/") + family), 40, 12, 1);
}

TEST(DecodePrefill, LongRopePromptsDoNotCrossTheOriginalContextInOneForward)
{
    // phi3 with longrope from 16 positions on: a forward reaching past 16 rotates all its rows with the long factors,
    // as no single step before 16 did, so the 40-token prompt runs as [0, 16) and [16, 40).
    const std::string fixture = test::sharedPath("fixtures/hf-tiny/phi3");
    const std::string dir = test::makeTempDir("decode-prefill-longrope");
    std::filesystem::copy_file(
        fixture + "/model.safetensors", dir + "/model.safetensors", std::filesystem::copy_options::overwrite_existing);
    nlohmann::json config = nlohmann::json::parse(std::ifstream(fixture + "/config.json"));
    config["original_max_position_embeddings"] = 16;
    config["rope_scaling"] = { { "type", "longrope" }, { "short_factor", { 1.0, 1.5, 2.0, 3.0 } },
        { "long_factor", { 2.0, 4.0, 8.0, 16.0 } } };
    std::ofstream(dir + "/config.json") << config.dump();
    expectBatchedEqualsOneAtATime(dir, 40, 12, 2);
}

} // namespace
} // namespace attn
