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

namespace attn {

namespace {

struct BertLayer {
    Tensor qW, qB, kW, kB, vW, vB, oW, oB, ln1w, ln1b, iW, iB, outW, outB, ln2w, ln2b;
};

struct BertHead {
    Tensor dW, dB, lnW, lnB, bias; ///< empty dW = no MLM head
};

class BertModel final : public EncoderModel {
public:
    BertModel(ModelConfig config, Tensor word, Tensor pos, Tensor type, Tensor embLnW, Tensor embLnB,
        std::vector<BertLayer> layers, BertHead head)
        : EncoderModel(std::move(config))
        , m_word(std::move(word))
        , m_pos(std::move(pos))
        , m_type(std::move(type))
        , m_embLnW(std::move(embLnW))
        , m_embLnB(std::move(embLnB))
        , m_layers(std::move(layers))
        , m_head(std::move(head))
        , m_activation(parseActivation(m_config.activation, m_config.source)) { }

    StepResult encode(const std::vector<int64_t>& tokens, const std::vector<int64_t>& tokenTypes,
        const std::vector<uint8_t>& attentionMask, const ForwardOptions& options) const override {
        const auto start = std::chrono::steady_clock::now();
        const ModelConfig& c = m_config;
        const int64_t n = static_cast<int64_t>(tokens.size());
        if (n == 0) throw Error("encode: no tokens");
        if (n > c.maxPositions)
            throw Error("input of " + std::to_string(n) + " tokens exceeds the model's limit of "
                + std::to_string(c.maxPositions));
        if (!tokenTypes.empty() && tokenTypes.size() != tokens.size())
            throw Error(
                "encode: " + std::to_string(tokenTypes.size()) + " token types for " + std::to_string(n) + " tokens");
        if (!attentionMask.empty() && attentionMask.size() != tokens.size())
            throw Error("encode: attention mask of " + std::to_string(attentionMask.size()) + " for "
                + std::to_string(n) + " tokens");
        Tensor embedded = gatherRows(m_word, tokens, "token");
        addInPlace(embedded,
            gatherRows(m_type, tokenTypes.empty() ? std::vector<int64_t>(tokens.size(), 0) : tokenTypes, "token type"));
        std::vector<int64_t> positions(tokens.size());
        for (int64_t i = 0; i < n; ++i)
            positions[static_cast<size_t>(i)] = i;
        addInPlace(embedded, gatherRows(m_pos, positions, "position"));
        layerNormInPlace(embedded, m_embLnW, m_embLnB, c.normEps);

        AttentionOptions attn;
        attn.mask.keyKeep = attentionMask;
        StepResult result;
        runStream(options.backend, m_weightsLifetime, [&](Stream& s) {
            result = startResult(tokens, 0, options); // a rerun after a device failure starts afresh
            Value x = s.input(embedded);
            if (options.wantHiddenStates) s.read(x, &result.hiddenStates.emplace_back());
            for (const BertLayer& w : m_layers) {
                const size_t l = static_cast<size_t>(&w - m_layers.data());
                const Value q = s.splitHeads(s.linear(x, w.qW, &w.qB), c.numHeads, c.headDim, 0);
                const Value k = s.splitHeads(s.linear(x, w.kW, &w.kB), c.numHeads, c.headDim, 0);
                const Value v = s.splitHeads(s.linear(x, w.vW, &w.vB), c.numHeads, c.headDim, 0);
                if (options.wantQueryKeys) {
                    s.read(q, &result.queries.emplace_back());
                    s.read(k, &result.keys.emplace_back());
                    s.read(v, &result.values.emplace_back());
                }
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
            if (!m_head.dW.empty()) {
                const Value t = s.linear(x, m_head.dW, &m_head.dB);
                s.activate(t, m_activation);
                s.linearTo(s.layerNorm(t, m_head.lnW, m_head.lnB, c.normEps), m_word, &m_head.bias, &result.logits);
            }
            s.flush();
        });
        result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return result;
    }

private:
    Tensor m_word, m_pos, m_type, m_embLnW, m_embLnB;
    std::vector<BertLayer> m_layers;
    BertHead m_head;
    Activation m_activation;
};

} // namespace

std::shared_ptr<EncoderModel> loadBert(const ModelSource& source) {
    const ModelConfig& c = source.config;
    WeightReader r(source.weightsPath);
    // BertForMaskedLM prefixes the body with "bert."; a bare BertModel does not.
    const std::string pre = r.has("bert.embeddings.word_embeddings.weight") ? "bert." : "";
    const int64_t D = c.hiddenSize, I = c.intermediateSize, V = c.vocabSize;
    const std::string e = pre + "embeddings.";
    Tensor word = r.take(e + "word_embeddings.weight", { V, D });
    Tensor pos = r.take(e + "position_embeddings.weight", { c.maxPositions, D });
    Tensor type = r.take(e + "token_type_embeddings.weight", { c.typeVocabSize, D });
    Tensor embLnW = r.take(e + "LayerNorm.weight", { D });
    Tensor embLnB = r.take(e + "LayerNorm.bias", { D });
    r.skip(e + "position_ids"); // buffers of older checkpoints
    r.skip(e + "token_type_ids");
    std::vector<BertLayer> layers;
    for (int64_t l = 0; l < c.numLayers; ++l) {
        const std::string p = pre + "encoder.layer." + std::to_string(l) + ".";
        BertLayer w;
        w.qW = r.take(p + "attention.self.query.weight", { D, D });
        w.qB = r.take(p + "attention.self.query.bias", { D });
        w.kW = r.take(p + "attention.self.key.weight", { D, D });
        w.kB = r.take(p + "attention.self.key.bias", { D });
        w.vW = r.take(p + "attention.self.value.weight", { D, D });
        w.vB = r.take(p + "attention.self.value.bias", { D });
        w.oW = r.take(p + "attention.output.dense.weight", { D, D });
        w.oB = r.take(p + "attention.output.dense.bias", { D });
        w.ln1w = r.take(p + "attention.output.LayerNorm.weight", { D });
        w.ln1b = r.take(p + "attention.output.LayerNorm.bias", { D });
        w.iW = r.take(p + "intermediate.dense.weight", { I, D });
        w.iB = r.take(p + "intermediate.dense.bias", { I });
        w.outW = r.take(p + "output.dense.weight", { D, I });
        w.outB = r.take(p + "output.dense.bias", { D });
        w.ln2w = r.take(p + "output.LayerNorm.weight", { D });
        w.ln2b = r.take(p + "output.LayerNorm.bias", { D });
        layers.push_back(std::move(w));
    }
    BertHead head;
    if (r.has("cls.predictions.transform.dense.weight")) {
        head.dW = r.take("cls.predictions.transform.dense.weight", { D, D });
        head.dB = r.take("cls.predictions.transform.dense.bias", { D });
        head.lnW = r.take("cls.predictions.transform.LayerNorm.weight", { D });
        head.lnB = r.take("cls.predictions.transform.LayerNorm.bias", { D });
        head.bias = r.take("cls.predictions.bias", { V });
        r.skip("cls.predictions.decoder.weight"); // tied to the word embeddings
        r.skip("cls.predictions.decoder.bias"); // tied to cls.predictions.bias
    }
    for (const char* unused : { "pooler.dense.weight", "pooler.dense.bias" }) // BertModel's pooler: not attention
        r.skip(pre + unused);
    r.expectAllUsed();
    return std::make_shared<BertModel>(c, std::move(word), std::move(pos), std::move(type), std::move(embLnW),
        std::move(embLnB), std::move(layers), std::move(head));
}

} // namespace attn
