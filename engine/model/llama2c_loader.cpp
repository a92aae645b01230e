// SPDX-License-Identifier: MIT
// llama2.c checkpoints (run.c legacy layout and export "version 1") -> LlamaWeights.
#include "core/error.h"
#include "core/mapped_file.h"
#include "model/llama2c_format.h"
#include "model/llama_model.h"
#include "quant/packed_matrix.h"

#include <memory>

namespace attn {
namespace {

/// Hands out consecutive float32 tensors from the mapped checkpoint. The matrices are read where they lie in the
/// mapping, as run.c reads them (a float32 copy of each, zero-filled first, was over half of a stories260K start-up's
/// page faults), and each keeps the mapping alive. Every offset is the 28- or 256-byte header plus whole floats, so the
/// page-aligned mapping keeps them float-aligned (PackedMatrix::denseF32 checks it again before a product reads one).
class FloatCursor {
public:
    FloatCursor(std::shared_ptr<const MappedFile> file, uint64_t offset)
        : m_file(std::move(file))
        , m_offset(offset)
    {
    }
    /// A matrix [rows, cols] in place; a vector (a norm's weights, which are read as float32 storage) copied out.
    Tensor next(const Shape& shape) {
        const uint8_t* at = take(shape);
        if (shape.size() == 2)
            return Tensor::fromPacked(
                std::make_shared<const PackedMatrix>(GgmlType::F32, shape[0], shape[1], at, m_file));
        const auto* floats = reinterpret_cast<const float*>(at);
        return Tensor(shape, std::vector<float>(floats, floats + shapeNumel(shape)));
    }
    /// `count` consecutive tensors of one shape: a per-layer stack.
    std::vector<Tensor> stacked(int64_t count, const Shape& shape) {
        std::vector<Tensor> out;
        for (int64_t i = 0; i < count; ++i)
            out.push_back(next(shape));
        return out;
    }
    void skip(int64_t floats) { take({ floats }); }

private:
    /// Where the next tensor's bytes lie; throws Error naming the file when they would pass its end (the header was
    /// checked against the file's size, but the file was mapped after that: it may have been cut in between).
    const uint8_t* take(const Shape& shape)
    {
        const auto bytes = static_cast<uint64_t>(shapeBytes(shape, 4, m_file->path()));
        if (m_offset > m_file->size() || bytes > m_file->size() - m_offset)
            throw Error(m_file->path(), "truncated llama2.c checkpoint");
        const uint8_t* at = m_file->data() + m_offset;
        m_offset += bytes;
        return at;
    }

    std::shared_ptr<const MappedFile> m_file;
    uint64_t m_offset;
};

} // namespace

std::shared_ptr<LlamaModel> loadLlama2c(const ModelSource& source) {
    const Llama2cHeader h = readLlama2cHeader(source.weightsPath);
    const ModelConfig& c = h.config;
    FloatCursor cur(std::make_shared<const MappedFile>(source.weightsPath), h.headerBytes);
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
        cur.skip(static_cast<int64_t>(h.seqLen) * c.headDim); // freq_cis_real + freq_cis_imag (run.c ignores them)
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
