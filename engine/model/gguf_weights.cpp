// SPDX-License-Identifier: MIT
#include "model/gguf_weights.h"

#include "core/error.h"
#include "io/gguf.h"
#include "model/weight_reader.h"
#include "quant/dequantize.h"
#include "quant/packed_matrix.h"

namespace attn {

GgufWeights::GgufWeights(std::shared_ptr<const GgufFile> file)
    : m_file(std::move(file))
{
}

bool GgufWeights::has(const std::string& name) const
{
    return m_file->findTensor(name) != nullptr;
}

const GgufTensorInfo& GgufWeights::expect(const std::string& name, const Shape& shape)
{
    const GgufTensorInfo* t = m_file->findTensor(name);
    if (!t) throw Error(m_file->path(), "missing tensor '" + name + "'");
    if (t->torchShape() != shape)
        throw Error(m_file->path(),
            "tensor '" + name + "' has shape " + shapeToString(t->torchShape()) + ", expected " + shapeToString(shape));
    m_used.insert(name);
    return *t;
}

Tensor GgufWeights::dense(const std::string& name, const Shape& shape)
{
    const GgufTensorInfo& t = expect(name, shape);
    Tensor out(shape);
    const uint64_t rowBytes = t.bytes / static_cast<uint64_t>(t.rows());
    for (int64_t r = 0; r < t.rows(); ++r)
        dequantizeRow(t.type, m_file->tensorData(t) + r * rowBytes, out.data() + r * t.rowLength(), t.rowLength());
    return out;
}

Tensor GgufWeights::matrix(const std::string& name, int64_t rows, int64_t cols, const std::vector<int64_t>& rowOrder)
{
    const GgufTensorInfo& t = expect(name, { rows, cols });
    // In place in the mapping, which the file (held by the matrix) keeps alive.
    return Tensor::fromPacked(
        std::make_shared<const PackedMatrix>(t.type, rows, cols, m_file->tensorData(t), m_file, rowOrder));
}

std::vector<Tensor> GgufWeights::expertMatrices(const std::string& name, int64_t experts, int64_t rows, int64_t cols)
{
    const GgufTensorInfo& t = expect(name, { experts, rows, cols });
    const uint64_t expertBytes = t.bytes / static_cast<uint64_t>(experts); // the file checked bytes against ne
    std::vector<Tensor> out;
    for (int64_t e = 0; e < experts; ++e)
        out.push_back(Tensor::fromPacked(std::make_shared<const PackedMatrix>(
            t.type, rows, cols, m_file->tensorData(t) + static_cast<uint64_t>(e) * expertBytes, m_file)));
    return out;
}

void GgufWeights::expectAllUsed() const
{
    std::vector<std::string> names;
    for (const GgufTensorInfo& t : m_file->tensors())
        names.push_back(t.name);
    expectAllTensorsUsed(m_file->path(), names, m_used);
}

std::vector<int64_t> unpermuteRopeRows(int64_t heads, int64_t headDim)
{
    std::vector<int64_t> order(static_cast<size_t>(heads * headDim));
    const int64_t half = headDim / 2;
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t p = 0; p < 2; ++p)
            for (int64_t i = 0; i < half; ++i)
                order[static_cast<size_t>(h * headDim + p * half + i)] = h * headDim + 2 * i + p;
    return order;
}

} // namespace attn
