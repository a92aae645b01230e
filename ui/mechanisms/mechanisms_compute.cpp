// SPDX-License-Identifier: MIT
#include "mechanisms/mechanisms_request.h"

#include "core/error.h"
#include "mechanisms/attention_math.h"
#include "mechanisms/learned_positions.h"
#include "mechanisms/mechanisms_cache.h"
#include "mechanisms/mechanisms_maps.h"
#include "mechanisms/position_tables.h"
#include "mechanisms/sampled_rows.h"
#include "model/model_source.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>

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
    return p;
}

/// Mean ln(visible keys) over the rows the mask keeps any key of: the entropy of uniform attention.
double uniformEntropy(const KeepMask& keep)
{
    double sum = 0;
    int64_t rows = 0;
    for (Eigen::Index i = 0; i < keep.rows(); ++i)
        if (const int64_t visible = keep.row(i).cast<int64_t>().sum(); visible > 0) {
            sum += std::log(static_cast<double>(visible));
            ++rows;
        }
    return sum / static_cast<double>(std::max<int64_t>(rows, 1));
}

bool samePositions(const MechanismsRequest& a, const MechanismsRequest& b)
{
    if (a.synthetic != b.synthetic) return false;
    return a.synthetic ? a.tokens == b.tokens && a.dk == b.dk : sameHeads(a, b);
}

/// Whether `a` and `b` run on the same q, k, v: one model head (sameHeads, the same head) or one synthetic draw.
bool sameHead(const MechanismsRequest& a, const MechanismsRequest& b)
{
    if (a.synthetic || b.synthetic)
        return a.synthetic == b.synthetic && a.tokens == b.tokens && a.dk == b.dk && a.seed == b.seed;
    return sameHeads(a, b) && a.head == b.head;
}

/// Every number of the result (computeMechanisms adds the maps). `last`: the last result when it is on the same head
/// (else null): the parts it holds are this one's too.
std::shared_ptr<MechanismsResult> computeNumbers(const MechanismsRequest& request, ModelRegistry& models,
    const std::function<bool()>& keepGoing, MechanismsCache& kept, const MechanismsResult* last)
{
    auto checkpoint = [&] {
        if (!keepGoing()) throw Cancelled();
    };
    auto r = std::make_shared<MechanismsResult>();
    r->request = request;
    std::shared_ptr<const ModelHeads> model;
    if (request.synthetic) {
        r->inputs = syntheticHeadInputs(request.tokens, request.dk, request.seed);
    } else {
        if (!kept.heads || !sameHeads(kept.headsInput, request)) {
            kept.heads.reset(); // the last input's heads go before the next are read
            kept.heads = std::make_shared<const ModelHeads>(readModelHeads(request, models, keepGoing));
            kept.headsInput = request;
        }
        model = kept.heads;
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
    r->parts = kComparePart;
    // A part is the last result's when that one holds it (a variant, tile, group or page switch on one head), computed
    // when the request asks for it (the page shown), else left empty: a head switch costs what one page shows.
    const auto carried = [&](unsigned part) { return last && (last->parts & part) != 0; };
    const auto wanted = [&](unsigned part) { return (request.parts & part) != 0; };
    // Every curve below is a mean over query rows, each row exact: on a long input they take kSweepRowLimit rows.
    const std::vector<int64_t> rows = sweepQueryRows(in.tokens(), kSweepRowLimit);
    r->sampledRows = static_cast<int64_t>(rows.size());
    // An RNN's cross-attention with its learned score: the scoring functions and the temperature are all that apply.
    const bool dotHead = in.isSelfAttention();
    if (carried(kScalePart)) {
        r->uniformEntropy = last->uniformEntropy;
        r->headAtDk = last->headAtDk;
        r->head = last->head;
        r->temperature = last->temperature;
        r->sweep = last->sweep;
        r->parts |= kScalePart;
    } else if (wanted(kScalePart)) {
        r->uniformEntropy = uniformEntropy(modelKeepMask(in, rows));
        std::vector<double> atSlider; // the temperatures the d_k slider puts the head at
        if (dotHead) {
            r->headAtDk = headScaledAs(in, powersOfTwo(1024), kSweepRowLimit);
            r->head = headScalePoint(in, kSweepRowLimit);
            for (const TemperaturePoint& p : r->headAtDk)
                atSlider.push_back(p.temperature);
        }
        r->temperature = temperatureSweep(in, temperatureAxis(atSlider), kSweepRowLimit);
        if (kept.sweep.empty() || kept.sweepTokens != in.tokens() || kept.sweepSeed != request.seed) {
            kept.sweep = scaleSweep(in.tokens(), powersOfTwo(1024), request.seed, kSweepRowLimit);
            kept.sweepTokens = in.tokens();
            kept.sweepSeed = request.seed;
        }
        r->sweep = kept.sweep;
        r->parts |= kScalePart;
    }
    if (carried(kPositionsPart)) {
        r->positions = last->positions;
        r->alibi = last->alibi;
        r->parts |= kPositionsPart;
    } else if (wanted(kPositionsPart)) {
        if (!kept.positions || !samePositions(kept.positionsInput, request)) {
            kept.positions.reset();
            kept.positions = std::make_shared<const PositionTables>(
                positionTables(in, model ? &model->config : nullptr, request.block));
            kept.positionsInput = request;
        }
        r->positions = kept.positions;
        r->alibi = alibiMatrix(in.tokens(), in.numHeads, std::max<int64_t>(in.head, 0));
        r->parts |= kPositionsPart;
    }
    checkpoint();
    // The other pages say why they need a self-attention head (or, for GQA, a model): nothing to compute for them.
    if (!dotHead) {
        r->parts |= kFlashPart | kLinearPart | kGqaPart;
        return r;
    }
    const bool sameTiles = last && last->request.flashBq == request.flashBq && last->request.flashBk == request.flashBk;
    if (carried(kFlashPart) && sameTiles) {
        r->flash = last->flash;
        r->flashMaxError = last->flashMaxError;
        r->io = last->io;
        r->parts |= kFlashPart;
    } else if (wanted(kFlashPart)) {
        r->flash = flashAttentionRows(in, request.flashBq, request.flashBk, rows);
        r->flashMaxError = (r->flash.out - exactProbabilityRows(in, rows) * in.v).cwiseAbs().maxCoeff();
        for (int64_t T = 64; T <= 8192; T *= 2)
            r->io.emplace_back(T, attentionIo(T, in.dim(), request.flashBq, request.flashBk, in.causal));
        r->parts |= kFlashPart;
    }
    if (carried(kLinearPart)) {
        r->linformerSweep = last->linformerSweep;
        r->performerSweep = last->performerSweep;
        r->parts |= kLinearPart;
    } else if (wanted(kLinearPart)) {
        // 8 seeds x up to 13 sizes of draws, measured on the same rows; cancel (a newer request, Cancel, closing the
        // app) is polled between draws. Linformer's projections are the input's, kept for the next head.
        const int64_t largestK = std::min<int64_t>(4096, std::max<int64_t>(2, 2 * in.tokens())); // linformer:K's bound
        r->linformerSweep = approximationSweep(
            in, "linformer", powersOfTwo(largestK), kSweepSeeds, kSweepRowLimit, checkpoint, &kept.linformerDraws);
        r->performerSweep
            = approximationSweep(in, "performer", powersOfTwo(1024), kSweepSeeds, kSweepRowLimit, checkpoint);
        r->parts |= kLinearPart;
    }
    checkpoint();
    const bool sameGroups = last && last->request.gqaGroups == request.gqaGroups;
    if (!model) {
        r->parts |= kGqaPart; // the page says it needs a model
    } else if (carried(kGqaPart) && sameGroups) {
        r->gqa = last->gqa;
        r->gqaPerHead = last->gqaPerHead;
        r->parts |= kGqaPart;
    } else if (wanted(kGqaPart)) {
        const MechanismSpec gqa = parseMechanism("gqa:" + std::to_string(request.gqaGroups));
        r->gqa = runGroupedKvRows(in, gqa, rows);
        // The table is the layer's: the last result's whenever it read the same heads with the same groups.
        const bool sameTable = kept.last && !kept.last->gqaPerHead.empty() && sameHeads(kept.last->request, request)
            && kept.last->request.gqaGroups == request.gqaGroups;
        r->gqaPerHead
            = sameTable ? kept.last->gqaPerHead : groupedKvPerHead(model->layer, gqa, kSweepRowLimit, checkpoint);
        r->parts |= kGqaPart;
    }
    return r;
}

} // namespace

MechanismsPtr computeMechanisms(const MechanismsRequest& request, ModelRegistry& models,
    const std::function<bool()>& keepGoing, MechanismsCache* cache)
{
    MechanismsCache scratch;
    MechanismsCache& kept = cache ? *cache : scratch;
    kept.previous.reset(); // the tab shows `last` now (or a newer result): this one is freed here, not there
    const MechanismsResult* last = kept.last && sameHead(kept.last->request, request) ? kept.last.get() : nullptr;
    const std::shared_ptr<MechanismsResult> r = computeNumbers(request, models, keepGoing, kept, last);
    r->maps = mechanismsMaps(*r, last && (last->parts & kPositionsPart) ? &last->maps : nullptr);
    kept.previous = std::exchange(kept.last, r);
    return r;
}

} // namespace attn::ui
