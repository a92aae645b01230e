// SPDX-License-Identifier: MIT
// llama2.c checkpoints (run.c legacy layout and export "version 1") -> LlamaWeights.
#include "core/error.h"
#include "core/mapped_file.h"
#include "model/llama2c_format.h"
#include "model/llama_model.h"

#include <cstring>

namespace attn {
namespace {

/// Hands out consecutive float32 tensors from the mapped checkpoint.
class FloatCursor {
public:
    FloatCursor(const MappedFile& file, uint64_t offset)
        : m_file(file)
        , m_offset(offset) { }
    Tensor next(const Shape& shape) {
        const uint64_t bytes = static_cast<uint64_t>(shapeNumel(shape)) * 4;
        if (m_offset + bytes > m_file.size()) throw Error(m_file.path(), "truncated llama2.c checkpoint");
        Tensor t(shape);
        std::memcpy(t.data(), m_file.data() + m_offset, bytes);
        m_offset += bytes;
        return t;
    }
    /// `count` consecutive tensors of one shape: a per-layer stack.
    std::vector<Tensor> stacked(int64_t count, const Shape& shape) {
        std::vector<Tensor> out;
        for (int64_t i = 0; i < count; ++i)
            out.push_back(next(shape));
        return out;
    }
    void skip(uint64_t floats) { m_offset += floats * 4; }

private:
    const MappedFile& m_file;
    uint64_t m_offset;
};

} // namespace

std::shared_ptr<LlamaModel> loadLlama2c(const ModelSource& source) {
    const Llama2cHeader h = readLlama2cHeader(source.weightsPath);
    const ModelConfig& c = h.config;
    const MappedFile file(source.weightsPath);
    FloatCursor cur(file, h.headerBytes);
    const int64_t L = c.numLayers, D = c.hiddenSize, kvDim = c.numKvHeads * c.headDim;
    const int64_t I = c.intermediateSize, V = c.vocabSize;

    LlamaWeights w;
    std::vector<Tensor> attnNorm, ffnNorm, wq, wk, wv, wo, w1, w2, w3;
    if (h.version == 0) {
        w.embed = cur.next({ V, D });
        attnNorm = cur.stacked(L, { D });
        wq = cur.stacked(L, { D, D });
        wk = cur.stacked(L, { kvDim, D });
        wv = cur.stacked(L, { kvDim, D });
        wo = cur.stacked(L, { D, D });
        ffnNorm = cur.stacked(L, { D });
        w1 = cur.stacked(L, { I, D });
        w2 = cur.stacked(L, { D, I });
        w3 = cur.stacked(L, { I, D });
        w.finalNorm.weight = cur.next({ D });
        cur.skip(h.seqLen * static_cast<uint64_t>(c.headDim)); // freq_cis_real + freq_cis_imag (run.c ignores them)
    } else {
        attnNorm = cur.stacked(L, { D });
        ffnNorm = cur.stacked(L, { D });
        w.finalNorm.weight = cur.next({ D });
        w.embed = cur.next({ V, D });
        wq = cur.stacked(L, { D, D });
        wk = cur.stacked(L, { kvDim, D });
        wv = cur.stacked(L, { kvDim, D });
        wo = cur.stacked(L, { D, D });
        w1 = cur.stacked(L, { I, D });
        w2 = cur.stacked(L, { D, I });
        w3 = cur.stacked(L, { I, D });
    }
    if (!h.sharedClassifier) w.lmHead = cur.next({ V, D });
    for (int64_t l = 0; l < L; ++l) {
        const auto i = static_cast<size_t>(l);
        LlamaLayerWeights lw;
        lw.attnNorm.weight = std::move(attnNorm[i]);
        lw.wq = std::move(wq[i]);
        lw.wk = std::move(wk[i]);
        lw.wv = std::move(wv[i]);
        lw.wo = std::move(wo[i]);
        lw.ffnNorm.weight = std::move(ffnNorm[i]);
        lw.gate = std::move(w1[i]);
        lw.down = std::move(w2[i]);
        lw.up = std::move(w3[i]);
        w.layers.push_back(std::move(lw));
    }
    return std::make_shared<LlamaModel>(c, std::move(w));
}

} // namespace attn
