// SPDX-License-Identifier: MIT
#pragma once
#include "core/tensor.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace attn {

class GgufFile;

/// Reads a family's tensors from a GGUF file by llama.cpp name, checking each shape (given in PyTorch order, the
/// reverse of ggml's ne), and remembers which were used so that tensors a family would ignore are reported.
class GgufWeights {
public:
    explicit GgufWeights(std::shared_ptr<const GgufFile> file);

    bool has(const std::string& name) const;
    /// A tensor of `shape` as float32 (norm weights, biases).
    Tensor dense(const std::string& name, const Shape& shape);
    /// A weight matrix [rows, cols] packed in its stored type, in place in the file's mapping; row r of the result
    /// is row rowOrder[r] of the file (empty: the identity).
    Tensor matrix(const std::string& name, int64_t rows, int64_t cols, const std::vector<int64_t>& rowOrder = {});
    /// The `experts` matrices [rows, cols] of a merged expert tensor [experts, rows, cols] (llama.cpp's
    /// ffn_*_exps), each packed in place over its slice of the mapping.
    std::vector<Tensor> expertMatrices(const std::string& name, int64_t experts, int64_t rows, int64_t cols);
    /// Throws Error listing the tensors of the file that were not taken.
    void expectAllUsed() const;
    const GgufFile& file() const { return *m_file; }
    /// The tensor `name`, which must have `shape` (it counts as used); throws Error naming the file otherwise.
    const struct GgufTensorInfo& expect(const std::string& name, const Shape& shape);

private:
    std::shared_ptr<const GgufFile> m_file;
    std::set<std::string> m_used;
};

/// The row order that undoes llama.cpp's Q/K permutation (convert_hf_to_gguf.py LlamaModel.permute) of a
/// [heads * headDim, in] projection: HF row h*hd + p*hd/2 + i is GGUF row h*hd + 2i + p, so that HF's rotate-half
/// RoPE applies.
std::vector<int64_t> unpermuteRopeRows(int64_t heads, int64_t headDim);

} // namespace attn
