// SPDX-License-Identifier: MIT
#include "model/seq2seq_model.h"

#include "core/error.h"
#include "intervention/intervention.h"
#include "session/sampler.h"

#include <cstring>

namespace attn {

EncoderDecoderModel::EncoderDecoderModel(ModelConfig config, int64_t decoderHeadDim)
    : Model(std::move(config))
    , m_decoderHeadDim(decoderHeadDim)
{
}

std::string Seq2SeqHeadRows::rowName(int64_t row) const
{
    if (row < encoderLayers) return "enc L" + std::to_string(row);
    if (row < encoderLayers + decoderLayers) return "dec L" + std::to_string(row - encoderLayers);
    return "cross L" + std::to_string(row - encoderLayers - decoderLayers);
}

Seq2SeqHeadRows seq2seqHeadRows(const ModelConfig& config)
{
    return { config.numLayers, config.numDecoderLayers, config.numDecoderHeads };
}

Seq2SeqHeadRows EncoderDecoderModel::headRows() const
{
    return seq2seqHeadRows(m_config);
}

void EncoderDecoderModel::checkHeadMask(const ForwardOptions& options) const
{
    if (!options.intervention) return;
    if (m_config.numLayers > 0 && m_config.numHeads != m_config.numDecoderHeads)
        throw Error(m_config.source,
            "head masks of an encoder-decoder need one head count for both stacks; the encoder has "
                + std::to_string(m_config.numHeads) + " heads, the decoder "
                + std::to_string(m_config.numDecoderHeads));
    const Seq2SeqHeadRows rows = headRows();
    checkIntervention(options, rows.rows(), rows.heads, false);
}

KvCache EncoderDecoderModel::newDecoderCache() const
{
    const int64_t heads = m_config.numDecoderHeads;
    return KvCache(m_config.numDecoderLayers, heads, heads, m_decoderHeadDim, m_decoderHeadDim);
}

std::vector<int64_t> greedyDecode(const EncoderDecoderModel& model, const EncoderOutput& encoding, int64_t steps,
    bool stopAtEos, Tensor* stepLogits, const ForwardOptions& base)
{
    if (model.decoderStartToken() < 0)
        throw Error(model.config().source, "no decoder_start_token_id: cannot start decoding");
    ForwardOptions options = base;
    options.wantAttention = false;
    KvCache cache = model.newDecoderCache();
    const int64_t vocab = model.config().vocabSize;
    std::vector<float> logits;
    std::vector<int64_t> out;
    int64_t next = model.decoderStartToken();
    for (int64_t s = 0; s < steps; ++s) {
        const Seq2SeqStepResult r = model.decode(encoding, cache, { next }, options);
        const float* row = r.logits.data();
        logits.insert(logits.end(), row, row + vocab);
        next = argmax(row, vocab);
        out.push_back(next);
        if (stopAtEos && next == model.config().eosTokenId) break;
    }
    if (stepLogits) *stepLogits = Tensor({ static_cast<int64_t>(out.size()), vocab }, std::move(logits));
    return out;
}

} // namespace attn
