// SPDX-License-Identifier: MIT
#include "mechanisms/mechanisms_request.h"

#include "core/error.h"
#include "mechanisms/attention_math.h"
#include "mechanisms/learned_positions.h"
#include "mechanisms/model_heads.h"
#include "mechanisms/position_tables.h"
#include "model/model_source.h"

#include <filesystem>

namespace attn::ui {

namespace {

/// `config`: the model's (null for synthetic input); `block`: which of an encoder-decoder's attentions the head is.
PositionTables positionTables(const HeadInputs& in, const ModelConfig* config, AttentionBlock block)
{
    PositionTables p;
    const int64_t T = in.tokens(), d = in.dim();
    if (config) {
        const ModelConfig& c = *config;
        p.modelHasRope = c.ropeStyle != RopeStyle::None;
        p.ropeTheta = c.ropeTheta;
        if (hasLearnedPositions(c)) {
            // The tables live in the weights file beside config.json (ModelConfig::source); the session keeps no copy.
            try {
                const ModelSource source = probeModel(std::filesystem::path(c.source).parent_path().string());
                const Mat table = learnedPositionTable(source, T, block);
                if (table.size()) p.learned = cosineSimilarity(table);
                p.relativeBias = t5RelativeBiasTable(source, block);
            } catch (const Error& e) {
                p.learnedNote = e.what();
            }
        }
    }
    p.sinusoid = sinusoidalTable(T, d);
    p.ropeAngles = ropeAngles(T, d, p.ropeTheta);
    p.ropeDecay = ropeDecay(T - 1, d, p.ropeTheta);
    // The model's bucketing when it is a T5 (else T5's defaults); decoders bucket one-sided.
    p.t5Bucketing = t5Bucketing(config);
    p.t5Buckets = t5BucketMatrix(T, !in.causal, p.t5Bucketing);
    p.alibi = alibiMatrix(T, in.numHeads, std::max<int64_t>(in.head, 0));
    return p;
}

ScalePoint headScalePoint(const HeadInputs& in)
{
    const MechanismResult scaled = runMechanism(in, parseMechanism("exact"));
    const MechanismResult unscaled = runMechanism(in, parseMechanism("unscaled"));
    return { in.dim(), meanRowEntropy(scaled.probs), meanRowEntropy(unscaled.probs), meanRowMax(scaled.probs),
        meanRowMax(unscaled.probs) };
}

} // namespace

MechanismsPtr computeMechanisms(
    const MechanismsRequest& request, ModelRegistry& models, const std::function<bool()>& keepGoing)
{
    auto checkpoint = [&] {
        if (!keepGoing()) throw Cancelled();
    };
    auto r = std::make_shared<MechanismsResult>();
    r->request = request;
    std::optional<ModelHeads> model;
    if (request.synthetic) {
        r->inputs = syntheticHeadInputs(request.tokens, request.dk, request.seed);
    } else {
        model = readModelHeads(request, models, keepGoing);
        const auto heads = static_cast<int64_t>(model->layer.size());
        if (request.head < 0 || request.head >= heads)
            throw Error(
                "head " + std::to_string(request.head) + " is outside the model's " + std::to_string(heads) + " heads");
        r->inputs = model->layer[static_cast<size_t>(request.head)];
        r->tokenIds = model->tokenIds;
        r->queryLabels = model->queryLabels;
        r->keyLabels = model->keyLabels;
        r->entropy = model->entropy;
        r->model = model->model;
    }
    const HeadInputs& in = r->inputs;
    r->report = analyzeMechanism(in, parseMechanism(request.variant));
    // An RNN's cross-attention with its learned score: the scoring functions and the temperature are all that apply.
    const bool dotHead = in.isSelfAttention();
    std::vector<double> atSlider; // the temperatures the d_k slider puts the head at
    if (dotHead) {
        r->headAtDk = headScaledAs(in, powersOfTwo(1024));
        r->head = headScalePoint(in);
        for (const TemperaturePoint& p : r->headAtDk)
            atSlider.push_back(p.temperature);
    }
    r->temperature = temperatureSweep(in, temperatureAxis(atSlider));
    r->sweep = scaleSweep(in.tokens(), powersOfTwo(1024), request.seed);
    r->positions = positionTables(in, model ? &model->config : nullptr, request.block);
    checkpoint();
    if (!dotHead) return r;
    const std::string tiles = std::to_string(request.flashBq) + ":" + std::to_string(request.flashBk);
    r->flash = runMechanism(in, parseMechanism("flash:" + tiles));
    for (int64_t T = 64; T <= 8192; T *= 2)
        r->io.emplace_back(T, attentionIo(T, in.dim(), request.flashBq, request.flashBk, in.causal));
    // The sweeps are 8 seeds x up to 13 sizes of draws, measured on at most kSweepRowLimit query rows (the page says
    // how many); cancel (a newer request, Cancel, closing the app) is polled between draws and between the heads below.
    const int64_t largestK = std::min<int64_t>(4096, std::max<int64_t>(2, 2 * in.tokens())); // linformer:K's bound
    r->linformerSweep
        = approximationSweep(in, "linformer", powersOfTwo(largestK), kSweepSeeds, kSweepRowLimit, checkpoint);
    r->performerSweep = approximationSweep(in, "performer", powersOfTwo(1024), kSweepSeeds, kSweepRowLimit, checkpoint);
    checkpoint();
    if (model) {
        const MechanismSpec gqa = parseMechanism("gqa:" + std::to_string(request.gqaGroups));
        r->gqa = runMechanism(in, gqa);
        for (const HeadInputs& other : model->layer) {
            checkpoint();
            const Mat exact = exactProbabilities(other);
            r->gqaPerHead.push_back(compareAttention(exact, exact * other.v, runMechanism(other, gqa)));
        }
    }
    return r;
}

} // namespace attn::ui
