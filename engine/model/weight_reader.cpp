// SPDX-License-Identifier: MIT
#include "model/weight_reader.h"

#include "core/error.h"
#include "core/memory_budget.h"
#include "io/safetensors.h"
#include "model/layers.h"
#include "quant/packed_matrix.h"

#include <cstdint>

namespace attn {

WeightReader::WeightReader(const std::string& weightsPath)
    : m_path(weightsPath) {
    if (weightsPath.empty())
        throw Error("model folder has no weights (model.safetensors or model.safetensors.index.json)");
    m_store = SafetensorsStore::open(weightsPath);
    requireMemory(m_store->residentBytesToLoad(), weightsPath, "these weights");
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
    const TensorInfo& info = m_store->info(name);
    if (info.shape != shape) return take(name, shape);
    const uint8_t* raw = m_store->rawData(info);
    GgmlType type;
    if (info.dtype == DType::F16)
        type = GgmlType::F16;
    else if (info.dtype == DType::BF16)
        type = GgmlType::BF16;
    else if (info.dtype == DType::F32 && reinterpret_cast<uintptr_t>(raw) % alignof(float) == 0)
        type = GgmlType::F32; // used as it lies in the mapping: no float32 copy beside the file's pages
    else
        return take(name, shape);
    m_used.insert(name);
    return Tensor::fromPacked(std::make_shared<const PackedMatrix>(type, shape[0], shape[1], raw, m_store));
}

std::vector<Tensor> WeightReader::takeMatrixRows(
    const std::string& name, const Shape& shape, const std::vector<std::vector<int64_t>>& parts) {
    const Tensor whole = takeMatrix(name, shape);
    std::vector<Tensor> out;
    for (const std::vector<int64_t>& rows : parts) {
        const PackedMatrix* p = whole.packed();
        out.push_back(p ? Tensor::fromPacked(std::make_shared<const PackedMatrix>(p->rowSubset(rows)))
                        : gatherRows(whole, rows, name));
    }
    return out;
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
