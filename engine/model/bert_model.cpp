// SPDX-License-Identifier: MIT
// BERT: word + position + token-type embeddings, post-LN encoder blocks, optional tied MLM head.
#include "model/bert_model.h"

#include "attention/attention.h"
#include "backend/backend.h"
#include "core/error.h"
#include "intervention/intervention.h"
#include "model/layers.h"
#include "model/weight_reader.h"

#include <chrono>
#include <tuple>

namespace attn {

BertModel::BertModel(ModelConfig config, BertWeights weights)
    : EncoderModel(std::move(config))
    , m_w(std::move(weights))
    , m_activation(parseActivation(m_config.activation, m_config.source))
{
}

StepResult BertModel::encode(const std::vector<int64_t>& tokens, const std::vector<int64_t>& tokenTypes,
    const std::vector<uint8_t>& attentionMask, const ForwardOptions& options) const
{
    const auto start = std::chrono::steady_clock::now();
    const ModelConfig& c = m_config;
    const int64_t n = static_cast<int64_t>(tokens.size());
    if (n == 0) throw Error("encode: no tokens");
    if (n > c.maxPositions)
        throw Error(
            "input of " + std::to_string(n) + " tokens exceeds the model's limit of " + std::to_string(c.maxPositions));
    if (!tokenTypes.empty() && tokenTypes.size() != tokens.size())
        throw Error(
            "encode: " + std::to_string(tokenTypes.size()) + " token types for " + std::to_string(n) + " tokens");
    if (!attentionMask.empty() && attentionMask.size() != tokens.size())
        throw Error("encode: attention mask of " + std::to_string(attentionMask.size()) + " for " + std::to_string(n)
            + " tokens");
    Tensor embedded = gatherRows(m_w.word, tokens, "token");
    addInPlace(embedded,
        gatherRows(m_w.type, tokenTypes.empty() ? std::vector<int64_t>(tokens.size(), 0) : tokenTypes, "token type"));
    std::vector<int64_t> positions(tokens.size());
    for (int64_t i = 0; i < n; ++i)
        positions[static_cast<size_t>(i)] = i;
    addInPlace(embedded, gatherRows(m_w.pos, positions, "position"));
    layerNormInPlace(embedded, m_w.embLnW, m_w.embLnB, c.normEps);

    AttentionOptions attn;
    attn.mask.keyKeep = attentionMask;
    StepResult result;
    runStream(options.backend, m_weightsLifetime, [&](Stream& s) {
        result = startResult(tokens, 0, options); // a rerun after a device failure starts afresh
        s.cancelInsideProducts(cancelPoll(options));
        Value x = s.input(embedded);
        if (options.wantHiddenStates) s.read(x, &result.hiddenStates.emplace_back());
        for (const BertLayer& w : m_w.layers) {
            const size_t l = static_cast<size_t>(&w - m_w.layers.data());
            const Value q = s.splitHeads(s.linear(x, w.qW, &w.qB), c.numHeads, c.headDim, 0);
            const Value k = s.splitHeads(s.linear(x, w.kW, &w.kB), c.numHeads, c.headDim, 0);
            const Value v = s.splitHeads(s.linear(x, w.vW, &w.vB), c.numHeads, c.headDim, 0);
            readQueryKeys(s, options, result, q, k, v);
            const Value heads = s.attention(q, k, v, withHeadScale(attn, options, static_cast<int64_t>(l)),
                options.wantAttention ? &result.attention[l] : nullptr);
            s.add(x, s.linear(heads, w.oW, &w.oB));
            x = s.layerNorm(x, w.ln1w, w.ln1b, c.normEps);
            const Value inter = s.linear(x, w.iW, &w.iB);
            s.activate(inter, m_activation);
            s.add(x, s.linear(inter, w.outW, &w.outB));
            x = s.layerNorm(x, w.ln2w, w.ln2b, c.normEps);
            if (options.wantHiddenStates) s.read(x, &result.hiddenStates.emplace_back());
            s.flush();
            reportLayerDone(options, static_cast<int64_t>(l) + 1, c.numLayers);
        }
        if (!m_w.head.dW.empty()) {
            const Value t = s.linear(x, m_w.head.dW, &m_w.head.dB);
            s.activate(t, m_activation);
            s.linearTo(s.layerNorm(t, m_w.head.lnW, m_w.head.lnB, c.normEps), m_w.word, &m_w.head.bias, &result.logits);
        }
        s.flush();
    });
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

std::shared_ptr<BertModel> loadBert(const ModelSource& source)
{
    const ModelConfig& c = source.config;
    WeightReader r(source.weightsPath);
    // BertForMaskedLM prefixes the body with "bert."; a bare BertModel does not.
    const std::string pre = r.has("bert.embeddings.word_embeddings.weight") ? "bert." : "";
    const int64_t D = c.hiddenSize, I = c.intermediateSize, V = c.vocabSize;
    const std::string e = pre + "embeddings.";
    BertWeights w;
    // Matrices through takeMatrix / takeLinear (F16/BF16 stay half, read by linear() and gatherRows()); vectors as
    // float32.
    w.word = r.takeMatrix(e + "word_embeddings.weight", { V, D });
    w.pos = r.takeMatrix(e + "position_embeddings.weight", { c.maxPositions, D });
    w.type = r.takeMatrix(e + "token_type_embeddings.weight", { c.typeVocabSize, D });
    w.embLnW = r.take(e + "LayerNorm.weight", { D });
    w.embLnB = r.take(e + "LayerNorm.bias", { D });
    r.skip(e + "position_ids"); // buffers of older checkpoints
    r.skip(e + "token_type_ids");
    for (int64_t l = 0; l < c.numLayers; ++l) {
        const std::string p = pre + "encoder.layer." + std::to_string(l) + ".";
        BertLayer L;
        std::tie(L.qW, L.qB) = r.takeLinear(p + "attention.self.query", D, D);
        std::tie(L.kW, L.kB) = r.takeLinear(p + "attention.self.key", D, D);
        std::tie(L.vW, L.vB) = r.takeLinear(p + "attention.self.value", D, D);
        std::tie(L.oW, L.oB) = r.takeLinear(p + "attention.output.dense", D, D);
        L.ln1w = r.take(p + "attention.output.LayerNorm.weight", { D });
        L.ln1b = r.take(p + "attention.output.LayerNorm.bias", { D });
        std::tie(L.iW, L.iB) = r.takeLinear(p + "intermediate.dense", I, D);
        std::tie(L.outW, L.outB) = r.takeLinear(p + "output.dense", D, I);
        L.ln2w = r.take(p + "output.LayerNorm.weight", { D });
        L.ln2b = r.take(p + "output.LayerNorm.bias", { D });
        w.layers.push_back(std::move(L));
    }
    if (r.has("cls.predictions.transform.dense.weight")) {
        std::tie(w.head.dW, w.head.dB) = r.takeLinear("cls.predictions.transform.dense", D, D);
        w.head.lnW = r.take("cls.predictions.transform.LayerNorm.weight", { D });
        w.head.lnB = r.take("cls.predictions.transform.LayerNorm.bias", { D });
        w.head.bias = r.take("cls.predictions.bias", { V });
        r.skip("cls.predictions.decoder.weight"); // tied to the word embeddings
        r.skip("cls.predictions.decoder.bias"); // tied to cls.predictions.bias
    }
    for (const char* unused : { "pooler.dense.weight", "pooler.dense.bias" }) // BertModel's pooler: not attention
        r.skip(pre + unused);
    r.expectAllUsed();
    return std::make_shared<BertModel>(c, std::move(w));
}

} // namespace attn
