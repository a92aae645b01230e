// SPDX-License-Identifier: MIT
#include "model/weight_reader.h"

#include "core/error.h"
#include "io/safetensors.h"

namespace attn {

WeightReader::WeightReader(const std::string& weightsPath)
    : m_path(weightsPath) {
    if (weightsPath.empty())
        throw Error("model folder has no weights (model.safetensors or model.safetensors.index.json)");
    m_store = SafetensorsStore::open(weightsPath);
}

bool WeightReader::has(const std::string& name) const {
    return m_store->contains(name);
}

Tensor WeightReader::take(const std::string& name, const Shape& shape) {
    m_used.insert(name);
    return m_store->load(name, shape);
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
