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
