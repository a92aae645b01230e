// SPDX-License-Identifier: MIT
#pragma once
#include "core/tensor.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace attn {

class MappedFile;

enum class DType { F64, F32, F16, BF16, I64, I32, I16, I8, U8, Bool };

std::string dtypeName(DType dtype);
size_t dtypeSize(DType dtype);

/// One tensor's entry in a safetensors header.
struct TensorInfo {
    std::string name;
    DType dtype = DType::F32;
    Shape shape;
    uint64_t begin = 0; ///< byte offset inside the file's data section
    uint64_t end = 0;
    size_t fileIndex = 0; ///< which shard
};

/// Memory-mapped safetensors weights: a single file, or shards listed by model.safetensors.index.json.
/// Every header is validated on open (size, JSON, dtypes, shapes vs byte spans, offsets in range and
/// non-overlapping); each violation throws Error naming the file, the tensor and the problem.
class SafetensorsStore {
public:
    static constexpr uint64_t kMaxHeaderBytes = 100ull * 1024 * 1024;

    /// `path` is a .safetensors file, a model.safetensors.index.json, or a folder holding either.
    static std::shared_ptr<SafetensorsStore> open(const std::string& path);

    bool contains(const std::string& name) const { return m_index.count(name) != 0; }
    const TensorInfo& info(const std::string& name) const; ///< throws Error if absent
    std::vector<std::string> names() const;
    size_t size() const { return m_tensors.size(); }
    const std::map<std::string, std::string>& metadata() const { return m_metadata; }
    const std::vector<std::string>& files() const { return m_files; }

    /// The tensor converted to float32 (F32/F16/BF16/F64 stored). Throws Error for other dtypes.
    Tensor load(const std::string& name) const;
    /// As load(), and throws Error naming the tensor if its shape differs from `expected`.
    Tensor load(const std::string& name, const Shape& expected) const;

    /// What loading every tensor costs in memory, as WeightReader keeps them: the mapped files' pages (all are read),
    /// plus a float32 copy of each tensor that is not used in place (vectors, F32 matrices that are not float-aligned
    /// in the mapping, other dtypes); matrices stored F32, F16 or BF16 cost nothing more. `transposedAtLoad` names the
    /// matrices a family copies transposed (GPT-2's Conv1D): each costs its packed copy (2 bytes an element for
    /// F16/BF16) or a float32 copy. Checked arithmetic; the sizes were validated against the files on open.
    uint64_t residentBytesToLoad(const std::function<bool(const std::string&)>& transposedAtLoad = nullptr) const;

    /// Raw bytes of a tensor in its stored dtype.
    const uint8_t* rawData(const TensorInfo& info) const;

    ~SafetensorsStore();

private:
    SafetensorsStore() = default;
    void addFile(const std::string& path);

    std::vector<std::string> m_files;
    std::vector<std::unique_ptr<MappedFile>> m_maps;
    std::vector<uint64_t> m_dataStart;
    std::vector<TensorInfo> m_tensors;
    std::map<std::string, size_t> m_index;
    std::map<std::string, std::string> m_metadata;
};

} // namespace attn
