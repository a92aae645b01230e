// SPDX-License-Identifier: MIT
#include "model/seq2seq_model.h"

#include "core/error.h"
#include "session/sampler.h"

#include <cstring>

namespace attn {

EncoderDecoderModel::EncoderDecoderModel(ModelConfig config, int64_t decoderHeadDim)
    : Model(std::move(config))
    , m_decoderHeadDim(decoderHeadDim)
{
}

KvCache EncoderDecoderModel::newDecoderCache() const
{
    const int64_t heads = m_config.numDecoderHeads;
    return KvCache(m_config.numDecoderLayers, heads, heads, m_decoderHeadDim, m_decoderHeadDim);
}

std::vector<int64_t> greedyDecode(
    const EncoderDecoderModel& model, const EncoderOutput& encoding, int64_t steps, bool stopAtEos, Tensor* stepLogits)
{
    if (model.decoderStartToken() < 0)
        throw Error(model.config().source, "no decoder_start_token_id: cannot start decoding");
    ForwardOptions options;
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
