// SPDX-License-Identifier: MIT
#include "model/model.h"

#include "backend/stream.h"
#include "core/error.h"
#include "intervention/intervention.h"
#include "model/kv_cache.h"

namespace attn {

Model::Model(ModelConfig config)
    : m_config(std::move(config)) { }

std::string Model::description() const {
    const ModelConfig& c = m_config;
    std::string s = c.modelType + " (" + (c.architecture.empty() ? modelKindName(c.kind) : c.architecture)
        + "): " + std::to_string(c.numLayers) + " layers, " + std::to_string(c.numHeads) + " heads";
    if (c.numKvHeads != c.numHeads) s += " (" + std::to_string(c.numKvHeads) + " KV heads)";
    return s + ", hidden " + std::to_string(c.hiddenSize) + ", head dim " + std::to_string(c.headDim) + ", vocab "
        + std::to_string(c.vocabSize);
}

void reportLayerDone(const ForwardOptions& options, int64_t done, int64_t total) {
    if (options.layerDone && !options.layerDone(done, total)) throw Cancelled();
    if (options.cancelRequested && options.cancelRequested()) throw Cancelled();
}

KvCache DecoderModel::newCache() const {
    return KvCache(m_config.numLayers, m_config.numHeads, m_config.numKvHeads, m_config.headDim, valueDim());
}

StepResult Model::startResult(
    const std::vector<int64_t>& tokens, int64_t firstPosition, const ForwardOptions& options) const {
    checkIntervention(options, m_config.numLayers, m_config.numHeads, m_config.kind == ModelKind::Decoder);
    StepResult result;
    result.firstPosition = firstPosition;
    result.tokens = tokens;
    // Streams fill these in place (Stream::read), so they must not reallocate while a forward runs.
    result.hiddenStates.reserve(static_cast<size_t>(m_config.numLayers + 1));
    if (options.wantAttention) result.attention.resize(static_cast<size_t>(m_config.numLayers));
    if (options.wantQueryKeys) {
        result.queries.reserve(static_cast<size_t>(m_config.numLayers));
        result.keys.reserve(static_cast<size_t>(m_config.numLayers));
        result.values.reserve(static_cast<size_t>(m_config.numLayers));
    }
    return result;
}

int64_t resumeReusedLayers(const ForwardOptions& options, KvCache& cache, StepResult& result, int64_t layers) {
    const ResumePoint* r = options.resume;
    if (!r) return 0;
    const int64_t past = cache.length(), n = static_cast<int64_t>(result.tokens.size());
    if (!r->from || !r->cache || r->layer < 0 || r->layer >= layers)
        throw Error("resume: layer " + std::to_string(r->layer) + " of " + std::to_string(layers)
            + " or its earlier pass is missing");
    const StepResult& from = *r->from;
    if (from.tokens != result.tokens || from.firstPosition != past
        || static_cast<int64_t>(from.hiddenStates.size()) != layers + 1
        || (options.wantAttention && static_cast<int64_t>(from.attention.size()) != layers))
        throw Error("resume: the earlier pass ran other tokens or positions, or without the hidden states (and "
                    "attention) this pass needs");
    for (int64_t l = 0; l < r->layer; ++l) {
        cache.appendFrom(*r->cache, l, past, n);
        if (options.wantAttention) result.attention[static_cast<size_t>(l)] = from.attention[static_cast<size_t>(l)];
        if (!result.routerLogits.empty() && from.routerLogits.size() == result.routerLogits.size())
            result.routerLogits[static_cast<size_t>(l)] = from.routerLogits[static_cast<size_t>(l)];
    }
    if (options.wantHiddenStates)
        for (int64_t l = 0; l < r->layer; ++l)
            result.hiddenStates.push_back(from.hiddenStates[static_cast<size_t>(l)]);
    return r->layer;
}

void readQueryKeys(
    Stream& s, const ForwardOptions& options, StepResult& result, const Value& q, const Value& k, const Value& v)
{
    if (!options.wantQueryKeys) return;
    s.read(q, &result.queries.emplace_back());
    s.read(k, &result.keys.emplace_back());
    s.read(v, &result.values.emplace_back());
}

Value logitsInput(Stream& s, const Value& normed, const ForwardOptions& options) {
    if (!options.lastLogitsOnly) return normed;
    Tensor all;
    s.read(normed, &all);
    s.flush();
    const int64_t rows = all.dim(0), width = all.dim(1);
    const float* last = all.data() + (rows - 1) * width;
    return s.input(Tensor({ 1, width }, std::vector<float>(last, last + width)));
}

} // namespace attn
