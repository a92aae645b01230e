// SPDX-License-Identifier: MIT
// ForwardOptions::layerDone: called once per layer with (done, total), and a false answer stops the forward pass
// right after that layer with Cancelled, leaving a decoder's KV cache as it was.
#include "model/kv_cache.h"
#include "model/model_loader.h"
#include "model/seq2seq_model.h"
#include "model_test_util.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace attn {
namespace {

/// Records every call and answers false once `stopAfter` layers are done (never when stopAfter < 0).
struct LayerRecorder {
    int64_t stopAfter = -1;
    std::vector<std::pair<int64_t, int64_t>> calls;
    ForwardOptions options() {
        ForwardOptions o;
        o.layerDone = [this](int64_t done, int64_t total) {
            calls.emplace_back(done, total);
            return done != stopAfter;
        };
        return o;
    }
};

TEST(LayerCancel, DecoderReportsEveryLayerAndStopsAfterTheRequestedOne) {
    const test::Fixture fx("gpt2");
    const auto model = std::dynamic_pointer_cast<const DecoderModel>(loadModel(fx.dir));
    ASSERT_TRUE(model);
    const int64_t layers = model->config().numLayers;
    ASSERT_GE(layers, 2);
    const std::vector<int64_t> ids = fx.ids("input_ids.npy");

    LayerRecorder all;
    KvCache cache = model->newCache();
    const StepResult full = model->forward(cache, ids, all.options());
    ASSERT_EQ(static_cast<int64_t>(all.calls.size()), layers);
    for (int64_t l = 0; l < layers; ++l)
        EXPECT_EQ(all.calls[static_cast<size_t>(l)], std::make_pair(l + 1, layers));
    EXPECT_EQ(cache.length(), static_cast<int64_t>(ids.size()));

    LayerRecorder stop;
    stop.stopAfter = 1; // cancel requested once layer 0 is done: layer 1 must not run
    KvCache fresh = model->newCache();
    EXPECT_THROW(model->forward(fresh, ids, stop.options()), Cancelled);
    ASSERT_EQ(stop.calls.size(), 1u);
    EXPECT_EQ(fresh.length(), 0); // the cancelled positions were rolled back
    // The model and cache stay usable: the same input now gives the same attention as before.
    const StepResult again = model->forward(fresh, ids, {});
    EXPECT_EQ(test::maxAbsDiff(again.attention.back(), full.attention.back()), 0.0);
}

TEST(LayerCancel, EncoderDecoderStopsInsideTheEncoderAndTheDecoder) {
    const test::Fixture fx("marian");
    const auto model = std::dynamic_pointer_cast<const EncoderDecoderModel>(loadModel(fx.dir));
    ASSERT_TRUE(model);
    EncoderInput source;
    source.tokens = fx.ids("input_ids.npy");

    LayerRecorder encoderStop;
    encoderStop.stopAfter = 1;
    EXPECT_THROW(model->encode(source, encoderStop.options()), Cancelled);
    EXPECT_EQ(encoderStop.calls.size(), 1u);

    LayerRecorder encoderAll;
    const auto encoding = model->encode(source, encoderAll.options());
    EXPECT_EQ(static_cast<int64_t>(encoderAll.calls.size()), model->config().numLayers);

    LayerRecorder decoderStop;
    decoderStop.stopAfter = 1;
    KvCache cache = model->newDecoderCache();
    EXPECT_THROW(model->decode(*encoding, cache, fx.ids("decoder_input_ids.npy"), decoderStop.options()), Cancelled);
    EXPECT_EQ(decoderStop.calls.size(), 1u);
    EXPECT_EQ(decoderStop.calls[0].second, model->decoderLayers());
    EXPECT_EQ(cache.length(), 0);
}

} // namespace
} // namespace attn
