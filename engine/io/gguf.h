// SPDX-License-Identifier: MIT
#pragma once
// GGUF (llama.cpp's model format, versions 2 and 3, little-endian): the metadata key/value pairs and the tensor
// infos, read from a memory mapping. Every count, length, offset and size is checked against the file before it is
// used, so a truncated or lying file gives an Error naming the file (and the key or tensor), never a huge allocation.
#include "core/mapped_file.h"
#include "quant/ggml_type.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace attn {

/// GGUF's value type numbers (gguf.h `enum gguf_type`).
enum class GgufValueType : uint32_t {
    Uint8 = 0,
    Int8 = 1,
    Uint16 = 2,
    Int16 = 3,
    Uint32 = 4,
    Int32 = 5,
    Float32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    Uint64 = 10,
    Int64 = 11,
    Float64 = 12,
};

const char* ggufValueTypeName(GgufValueType type);

/// One metadata value: integers widen to int64/uint64, floats to double; arrays hold their elements.
struct GgufValue {
    GgufValueType type = GgufValueType::Uint8;
    GgufValueType elementType = GgufValueType::Uint8; ///< arrays only
    std::variant<int64_t, uint64_t, double, bool, std::string, std::vector<GgufValue>> data;

    std::optional<int64_t> asInt() const; ///< any integer type that fits int64
    std::optional<double> asFloat() const; ///< float32 / float64
    const std::string* asString() const;
    const std::vector<GgufValue>* asArray() const;
    const bool* asBool() const;
};

struct GgufTensorInfo {
    std::string name;
    std::vector<int64_t> ne; ///< ggml order: ne[0] is the row length (a weight [out, in] has ne = {in, out})
    GgmlType type = GgmlType::F32;
    uint64_t fileOffset = 0; ///< absolute, in the file
    uint64_t bytes = 0;
    int64_t rowLength() const { return ne[0]; }
    int64_t rows() const; ///< the product of ne[1..]
    int64_t numel() const { return rowLength() * rows(); }
    /// The PyTorch shape: reversed ne ({out, in} for a weight).
    std::vector<int64_t> torchShape() const;
};

class GgufFile {
public:
    /// Maps and parses PATH; throws Error naming the file and what is wrong with it.
    explicit GgufFile(const std::string& path);

    const std::string& path() const { return m_file->path(); }
    uint32_t version() const { return m_version; }
    uint64_t alignment() const { return m_alignment; }
    uint64_t dataOffset() const { return m_dataOffset; }
    /// The key/value pairs in file order.
    const std::vector<std::pair<std::string, GgufValue>>& metadata() const { return m_kv; }
    const GgufValue* find(const std::string& key) const;
    /// Typed look-ups: nullopt when the key is absent; an Error naming the key when it has another type.
    std::optional<int64_t> getInt(const std::string& key) const;
    std::optional<double> getFloat(const std::string& key) const;
    std::optional<std::string> getString(const std::string& key) const;
    std::optional<bool> getBool(const std::string& key) const;
    /// An array of strings / of numbers (integers or floats, as double).
    std::optional<std::vector<std::string>> getStrings(const std::string& key) const;
    std::optional<std::vector<double>> getNumbers(const std::string& key) const;

    const std::vector<GgufTensorInfo>& tensors() const { return m_tensors; }
    const GgufTensorInfo* findTensor(const std::string& name) const;
    const uint8_t* tensorData(const GgufTensorInfo& info) const { return m_file->data() + info.fileOffset; }
    /// What loading the model costs in memory: the mapping's pages (quantized and half matrices are used in place, so
    /// all are read) plus a float32 copy of every tensor of rank 1 (norms, biases, which the loaders widen).
    uint64_t residentBytesToLoad() const;
    /// The mapping, for weights that stay in place: whoever holds it keeps the tensor data valid.
    const std::shared_ptr<const MappedFile>& mapping() const { return m_file; }

private:
    void parse();
    const GgufValue& expectType(const std::string& key, const GgufValue& v, bool ok, const char* wanted) const;

    std::shared_ptr<const MappedFile> m_file;
    uint32_t m_version = 0;
    uint64_t m_alignment = 32;
    uint64_t m_dataOffset = 0;
    std::vector<std::pair<std::string, GgufValue>> m_kv;
    std::map<std::string, size_t> m_kvIndex;
    std::vector<GgufTensorInfo> m_tensors;
    std::map<std::string, size_t> m_tensorIndex;
};

/// True when PATH starts with the GGUF magic.
bool looksLikeGguf(const std::string& path);

} // namespace attn
