// SPDX-License-Identifier: MIT
#include "model/weight_reader.h"

#include "core/error.h"
#include "core/memory_budget.h"
#include "io/safetensors.h"
#include "model/layers.h"
#include "quant/packed_matrix.h"

#include <cstdint>
#include <cstring>
#include <numeric>

namespace attn {

WeightReader::WeightReader(
    const std::string& weightsPath, const std::function<bool(const std::string&)>& transposedAtLoad)
    : m_path(weightsPath) {
    if (weightsPath.empty())
        throw Error("model folder has no weights (model.safetensors or model.safetensors.index.json)");
    m_store = SafetensorsStore::open(weightsPath);
    requireMemory(m_store->residentBytesToLoad(transposedAtLoad), weightsPath, "these weights",
        "a quantized GGUF of the model needs less: Q8_0 about half of a bf16 file, Q4_K about 0.3x");
}

bool WeightReader::has(const std::string& name) const {
    return m_store->contains(name);
}

Tensor WeightReader::take(const std::string& name, const Shape& shape) {
    m_used.insert(name);
    return m_store->load(name, shape);
}

Tensor WeightReader::takeMatrix(const std::string& name, const Shape& shape) {
    if (!has(name) || shape.size() != 2) return take(name, shape);
    return matrixInPlace(name, shape, shape);
}

std::pair<Tensor, Tensor> WeightReader::takeLinear(const std::string& name, int64_t out, int64_t in)
{
    return { takeMatrix(name + ".weight", { out, in }), take(name + ".bias", { out }) };
}

Tensor WeightReader::takeFlattenedMatrix(const std::string& name, const Shape& storedShape)
{
    if (!has(name) || storedShape.size() < 2 || storedShape[0] <= 0) return take(name, storedShape);
    const int64_t out = storedShape[0];
    return matrixInPlace(name, storedShape, { out, shapeNumel(storedShape, m_path) / out });
}

Tensor WeightReader::matrixInPlace(const std::string& name, const Shape& storedShape, const Shape& matrix)
{
    const TensorInfo& info = m_store->info(name);
    if (info.shape != storedShape) return take(name, storedShape); // take() names what is wrong
    const uint8_t* raw = m_store->rawData(info);
    GgmlType type;
    if (info.dtype == DType::F16)
        type = GgmlType::F16;
    else if (info.dtype == DType::BF16)
        type = GgmlType::BF16;
    else if (info.dtype == DType::F32 && reinterpret_cast<uintptr_t>(raw) % alignof(float) == 0)
        type = GgmlType::F32; // used as it lies in the mapping: no float32 copy beside the file's pages
    else
        return take(name, storedShape).reshaped(matrix);
    m_used.insert(name);
    return Tensor::fromPacked(std::make_shared<const PackedMatrix>(type, matrix[0], matrix[1], raw, m_store));
}

std::vector<Tensor> WeightReader::takeMatrixRows(
    const std::string& name, const Shape& shape, const std::vector<std::vector<int64_t>>& parts) {
    const Tensor whole = takeMatrix(name, shape);
    std::vector<Tensor> out;
    for (const std::vector<int64_t>& rows : parts)
        out.push_back(matrixRows(whole, rows, name));
    return out;
}

std::vector<int64_t> rowRange(int64_t first, int64_t count)
{
    std::vector<int64_t> rows(static_cast<size_t>(count));
    std::iota(rows.begin(), rows.end(), first);
    return rows;
}

Tensor matrixRows(const Tensor& whole, const std::vector<int64_t>& rows, const std::string& name)
{
    const PackedMatrix* p = whole.packed();
    return p ? Tensor::fromPacked(std::make_shared<const PackedMatrix>(p->rowSubset(rows)))
             : gatherRows(whole, rows, name);
}

Tensor WeightReader::takeTransposedMatrix(const std::string& name, const Shape& storedShape)
{
    if (!has(name) || storedShape.size() != 2 || m_store->info(name).shape != storedShape)
        return transposed(take(name, storedShape)); // take() names what is wrong
    const TensorInfo& info = m_store->info(name);
    if (info.dtype != DType::F16 && info.dtype != DType::BF16) return transposed(take(name, storedShape));
    m_used.insert(name);
    const int64_t in = storedShape[0], out = storedShape[1];
    // The element bits are moved, not converted: the copy holds exactly the stored halves. The mapping's bytes may
    // sit at any offset, so they are read by memcpy.
    auto bits = std::make_shared<std::vector<uint16_t>>(static_cast<size_t>(in * out));
    const uint8_t* raw = m_store->rawData(info);
    for (int64_t i = 0; i < in; ++i)
        for (int64_t o = 0; o < out; ++o)
            std::memcpy(&(*bits)[static_cast<size_t>(o * in + i)], raw + 2 * (i * out + o), 2);
    const GgmlType type = info.dtype == DType::F16 ? GgmlType::F16 : GgmlType::BF16;
    const auto* data = reinterpret_cast<const uint8_t*>(bits->data());
    return Tensor::fromPacked(std::make_shared<const PackedMatrix>(type, out, in, data, std::move(bits)));
}

void WeightReader::skip(const std::string& name) {
    m_used.insert(name);
}

void WeightReader::expectAllUsed() const {
    expectAllTensorsUsed(m_path, m_store->names(), m_used);
}

void expectAllTensorsUsed(
    const std::string& path, const std::vector<std::string>& names, const std::set<std::string>& used) {
    std::string unused;
    int count = 0;
    for (const auto& name : names) {
        if (used.count(name)) continue;
        if (++count <= 5) unused += (unused.empty() ? "" : ", ") + name;
    }
    if (count > 0)
        throw Error(path,
            std::to_string(count) + " tensor(s) this model family does not use: " + unused + (count > 5 ? ", ..." : "")
                + " (unsupported variant?)");
}

} // namespace attn
