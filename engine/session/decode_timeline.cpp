// SPDX-License-Identifier: MIT
#include "session/decode_timeline.h"

#include "backend/backend.h"
#include "core/error.h"
#include "model/kv_cache.h"
#include "model/model_loader.h"
#include "service/model_registry.h"
#include "session/session.h"
#include "tokenizer/tokenizer_loader.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {

namespace {

/// A prompt forward's logits and captured rows stay within this many floats (64 MB)...
constexpr int64_t kPrefillFloats = int64_t(16) << 20;
/// ...and its positions within this, which bounds its activations too ([positions, intermediate] floats per layer);
/// the matrix products gain nothing from longer forwards.
constexpr int64_t kBatchedPositionsMax = 512;

/// L2 norm of row `position` of one layer's keys or values, over every KV head together.
float rowNorm(const KvCache& cache, int64_t layer, int64_t position, bool keys)
{
    double sum = 0.0;
    for (int64_t h = 0; h < cache.numKvHeads(); ++h) {
        const Tensor& t = keys ? cache.keys(layer, h) : cache.values(layer, h);
        const int64_t d = t.dim(2);
        const float* row = t.data() + position * d;
        for (int64_t i = 0; i < d; ++i)
            sum += static_cast<double>(row[i]) * row[i];
    }
    return static_cast<float>(std::sqrt(sum));
}

} // namespace

int64_t decodeStopToken(const ModelSource& source)
{
    return source.format == ModelFormat::Llama2c ? 1 : source.config.eosTokenId;
}

std::unique_ptr<DecodeTimeline> openDecodeTimeline(
    const std::string& path, ModelRegistry* models, const ForwardOptions& options)
{
    const ModelSource source = probeModel(path);
    std::shared_ptr<const Model> model;
    std::shared_ptr<const Tokenizer> tokenizer;
    if (source.config.kind == ModelKind::Decoder) { // others are refused by the constructor, without a load
        try {
            tokenizer = loadTokenizer(source);
        } catch (const Error&) {
            // ids only, as `attnscope-cli generate` without a tokenizer
        }
        model = models ? models->model(source) : loadModel(source);
    }
    return std::make_unique<DecodeTimeline>(source, std::move(model), std::move(tokenizer), options);
}

DecodeTimeline::DecodeTimeline(const ModelSource& source, std::shared_ptr<const Model> model,
    std::shared_ptr<const Tokenizer> tokenizer, const ForwardOptions& options)
    : m_model(std::move(model))
    , m_tokenizer(std::move(tokenizer))
{
    if (source.config.kind != ModelKind::Decoder || !m_model)
        throw Error(source.config.source,
            "decoding needs a decoder model, not " + source.config.modelType + " (" + modelKindName(source.config.kind)
                + ")");
    m_session = std::make_unique<Session>(m_model, stepOptions(options));
    const ModelConfig& c = m_model->config();
    m_info.path = source.folder;
    m_info.numLayers = c.numLayers;
    m_info.numHeads = c.numHeads;
    m_info.numKvHeads = c.numKvHeads;
    m_info.slidingWindow = c.slidingWindow;
    for (int64_t l = 0; c.alternatingWindow && l < c.numLayers; ++l)
        m_info.layerWindows.push_back(c.windowOfLayer(l));
    m_info.attnLogitSoftcap = c.attnLogitSoftcap;
    m_info.finalLogitSoftcap = c.finalLogitSoftcap;
    m_info.maxPositions = c.maxPositions;
    m_info.vocabSize = c.vocabSize;
    m_info.stopToken = decodeStopToken(source);
    m_info.hasTokenizer = m_tokenizer != nullptr;
    setSampling({});
}

DecodeTimeline::~DecodeTimeline() = default;

void DecodeTimeline::setSampling(const SamplerOptions& options)
{
    m_sampler = std::make_unique<Sampler>(options);
}

const SamplerOptions& DecodeTimeline::sampling() const
{
    return m_sampler->options();
}

void DecodeTimeline::setForwardOptions(const ForwardOptions& options)
{
    m_session->setOptions(stepOptions(options));
}

bool DecodeTimeline::derivesAttention(const ForwardOptions& options) const
{
    return Session::canDeriveAttention(m_model->config()) && !options.intervention;
}

ForwardOptions DecodeTimeline::stepOptions(ForwardOptions options) const
{
    // Rows that can be derived are not captured: a step then costs the same with any view open or none.
    options.wantAttention = !derivesAttention(options);
    options.lastLogitsOnly = false; // every prompt position's logits give the next one's candidates
    return options;
}

void DecodeTimeline::reserve(int64_t positions)
{
    m_session->reserve(positions);
}

std::vector<int64_t> DecodeTimeline::encode(const std::string& text) const
{
    if (!m_tokenizer) throw Error(m_info.path + ": the model has no tokenizer; give token ids");
    std::vector<int64_t> ids = tokenIds(m_tokenizer->encode(text));
    if (ids.empty()) throw Error("the prompt is empty and the tokenizer adds no BOS: type some text");
    return ids;
}

TokenChip DecodeTimeline::chip(int64_t id) const
{
    if (!m_tokenizer) return { std::string("#").append(std::to_string(id)), id, false };
    return { m_tokenizer->tokenText(id), id, m_tokenizer->isSpecial(id) };
}

std::vector<DecodeStepPtr> DecodeTimeline::prompt(const std::vector<int64_t>& ids)
{
    if (ids.empty()) throw Error("the prompt has no tokens");
    if (static_cast<int64_t>(ids.size()) > m_info.maxPositions)
        throw Error("the prompt has " + std::to_string(ids.size()) + " tokens; the model takes at most "
            + std::to_string(m_info.maxPositions));
    clear();
    setSampling(m_sampler->options()); // a fresh generator, as a new `generate` run
    try {
        for (auto next = ids.begin(); next != ids.end();) {
            const auto end = next + std::min(batchedPositions(), static_cast<int64_t>(ids.end() - next));
            appendBatch(std::vector<int64_t>(next, end), TokenOrigin::Prompt);
            next = end;
        }
    } catch (...) {
        clear(); // all of the prompt or nothing
        throw;
    }
    return m_steps;
}

bool DecodeTimeline::finished() const
{
    return m_steps.empty() || length() >= m_info.maxPositions;
}

int64_t DecodeTimeline::draw()
{
    if (m_nextLogits.empty()) return -1;
    return m_sampler->sample(m_nextLogits.data(), static_cast<int64_t>(m_nextLogits.size()));
}

DecodeStepPtr DecodeTimeline::step()
{
    if (m_steps.empty()) throw Error("decode: give a prompt first");
    if (finished()) return nullptr;
    const int64_t next = draw();
    if (next == m_info.stopToken) return nullptr;
    return append(next, m_sampler->options().temperature > 0.0f ? TokenOrigin::Sampled : TokenOrigin::Greedy);
}

void DecodeTimeline::back()
{
    if (length() < 2) throw Error("back: the first position cannot be removed (use Reset)");
    truncate(length() - 1);
}

DecodeStepPtr DecodeTimeline::force(int64_t position, int64_t token)
{
    if (position < 1 || position > length())
        throw Error("force: position " + std::to_string(position) + " is outside 1.." + std::to_string(length()));
    if (token < 0 || token >= m_info.vocabSize)
        throw Error("force: token " + std::to_string(token) + " is outside the vocabulary of "
            + std::to_string(m_info.vocabSize));
    // A prompt token is the user's input, not a choice of the model: replacing it would silently rewrite the prompt.
    if (position < length() && m_steps[static_cast<size_t>(position)]->origin == TokenOrigin::Prompt)
        throw Error("force: position " + std::to_string(position)
            + " is part of the prompt; only generated tokens can be replaced (edit the prompt instead)");
    if (position < length()) truncate(position);
    return append(token, TokenOrigin::Forced);
}

std::vector<DecodeStepPtr> DecodeTimeline::restore(int64_t keep, const std::vector<DecodeStepPtr>& steps)
{
    if (keep < 1 || keep > length())
        throw Error(
            "restore: a branch must keep 1.." + std::to_string(length()) + " positions, not " + std::to_string(keep));
    if (keep < length()) truncate(keep);
    std::vector<DecodeStepPtr> added;
    for (const DecodeStepPtr& s : steps) {
        m_sampler->restoreState(s->samplerState); // as it was once this token had been chosen
        added.push_back(append(s->token.id, s->origin));
    }
    return added;
}

void DecodeTimeline::clear()
{
    m_session->reset();
    m_steps.clear();
    m_nextLogits.clear();
}

void DecodeTimeline::truncate(int64_t positions)
{
    // The logits after the new last position are not kept per position (a vocabulary-wide row each); running that
    // position again (same cache prefix, same token) reproduces them exactly.
    m_session->rewind(m_session->length() - (positions - 1));
    m_steps.resize(static_cast<size_t>(positions));
    m_sampler->restoreState(m_steps.back()->samplerState);
    const auto r = m_session->step(m_steps.back()->token.id);
    m_nextLogits.assign(r->logits.data(), r->logits.data() + r->logits.numel());
}

std::shared_ptr<const AttentionSource> DecodeTimeline::derivedAttention(
    int64_t positions, std::shared_ptr<Backend> backend) const
{
    if (positions < 1 || positions > length())
        throw Error("decode timeline: attention of " + std::to_string(positions) + " positions asked, "
            + std::to_string(length()) + " decoded");
    if (!derivesAttention(m_session->options())) return nullptr;
    return m_session->attentionSourceCopy(positions, std::move(backend));
}

DecodeStepPtr DecodeTimeline::append(int64_t token, TokenOrigin origin)
{
    const auto r = m_session->step(token);
    DecodeStepPtr s = record(token, origin, m_nextLogits.empty() ? nullptr : m_nextLogits.data(), *r, 0, r->seconds);
    m_nextLogits.assign(r->logits.data(), r->logits.data() + r->logits.numel());
    m_steps.push_back(s);
    return s;
}

void DecodeTimeline::appendBatch(const std::vector<int64_t>& tokens, TokenOrigin origin)
{
    const auto r = m_session->prefill(tokens);
    const auto n = static_cast<int64_t>(tokens.size());
    const int64_t vocab = r->logits.dim(1);
    for (int64_t i = 0; i < n; ++i) {
        // Row i - 1's logits are what one position at a time would have drawn token i from.
        const float* previous = i > 0 ? r->logits.data() + (i - 1) * vocab
            : m_nextLogits.empty()    ? nullptr
                                      : m_nextLogits.data();
        m_steps.push_back(record(tokens[static_cast<size_t>(i)], origin, previous, *r, i, r->seconds / n));
    }
    const float* last = r->logits.data() + (n - 1) * vocab;
    m_nextLogits.assign(last, last + vocab);
}

int64_t DecodeTimeline::batchedPositions() const
{
    const ModelConfig& c = m_model->config();
    // [positions, vocab] logits plus, where rows are captured, [layers, heads, positions, keys] per forward.
    const int64_t captured
        = derivesAttention(m_session->options()) ? 0 : m_info.numLayers * m_info.numHeads * c.maxPositions;
    const int64_t positions = std::clamp(
        kPrefillFloats / std::max<int64_t>(1, m_info.vocabSize + captured), int64_t(1), kBatchedPositionsMax);
    // Longrope rotates every row of a forward with the long factors once the forward passes the original context, so
    // a forward must not cross it: one position at a time, the rows before it were rotated with the short ones.
    // (Dynamic NTK changes its base only past max_position_embeddings, where no timeline goes.)
    const int64_t original = c.ropeScaling.originalMaxPositions;
    if (c.ropeScaling.type == RopeScaling::Type::LongRope && length() < original)
        return std::min(positions, original - length());
    return positions;
}

DecodeStepPtr DecodeTimeline::record(int64_t token, TokenOrigin origin, const float* previousLogits,
    const StepResult& r, int64_t row, double seconds) const
{
    auto s = std::make_shared<DecodeStep>();
    s->position = r.firstPosition + row;
    s->token = chip(token);
    s->origin = origin;
    s->probability = s->entropyBits = std::numeric_limits<float>::quiet_NaN();
    if (previousLogits && m_recordsDistribution) {
        const NextTokenDistribution d = nextTokenDistribution(previousLogits, r.logits.dim(1), kCandidates);
        s->candidates.reserve(d.topIds.size());
        for (int64_t id : d.topIds)
            s->candidates.push_back({ chip(id), d.probabilities[static_cast<size_t>(id)] });
        if (token >= 0 && token < static_cast<int64_t>(d.probabilities.size()))
            s->probability = d.probabilities[static_cast<size_t>(token)];
        s->entropyBits = d.entropyBits;
    }
    s->seconds = seconds;
    const Backend* backend = m_session->options().backend;
    s->backend = backend ? backend->name() : "cpu";
    s->samplerState = m_sampler->state();
    const int64_t keys = s->position + 1;
    s->attention.reserve(r.attention.size());
    for (const Tensor& layer : r.attention) { // [heads, rows, every key so far]; none where the rows are derived
        const int64_t heads = layer.dim(0), all = layer.dim(2);
        Tensor rows({ heads, keys });
        for (int64_t h = 0; h < heads; ++h)
            std::copy_n(layer.data() + (h * layer.dim(1) + row) * all, keys, rows.data() + h * keys);
        s->attention.push_back(std::move(rows));
    }
    const KvCache& cache = *m_session->cache();
    s->keyNorms.reserve(static_cast<size_t>(m_info.numLayers));
    s->valueNorms.reserve(static_cast<size_t>(m_info.numLayers));
    for (int64_t l = 0; l < m_info.numLayers; ++l) {
        s->keyNorms.push_back(rowNorm(cache, l, s->position, true));
        s->valueNorms.push_back(rowNorm(cache, l, s->position, false));
    }
    return s;
}

} // namespace attn
