// SPDX-License-Identifier: MIT
#pragma once
#include "core/tensor.h"

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace attn {

class SafetensorsStore;

/// Reads a family's tensors from a safetensors store, checking every shape, and remembers which ones were used, so
/// that tensors the family would ignore (a bias it does not know, say) are reported instead of silently dropped.
class WeightReader {
public:
    /// Opens the weights and refuses them, with the numbers, when their resident size (SafetensorsStore::
    /// residentBytesToLoad; `transposedAtLoad` names the matrices the family will take with takeTransposedMatrix)
    /// exceeds the memory available.
    explicit WeightReader(
        const std::string& weightsPath, const std::function<bool(const std::string&)>& transposedAtLoad = nullptr);

    bool has(const std::string& name) const;
    /// The tensor as float32; throws Error naming the tensor and file if it is missing or its shape differs.
    Tensor take(const std::string& name, const Shape& shape);
    /// A weight matrix [out, in] for linear() / gatherRows(): stored F32, F16 or BF16 stays in place in the mapping
    /// (f32 is multiplied directly, halves are widened inside the products); other dtypes as take().
    Tensor takeMatrix(const std::string& name, const Shape& shape);
    /// A Linear layer `name`: name.weight [out, in] as takeMatrix() gives it and name.bias [out] as float32.
    std::pair<Tensor, Tensor> takeLinear(const std::string& name, int64_t out, int64_t in);
    /// A kernel stored [out, d1, d2, ...] (a convolution) as the matrix [out, d1 * d2 * ...] its im2col product
    /// multiplies, kept as takeMatrix() keeps a matrix (F16/BF16 half, f32 in place).
    Tensor takeFlattenedMatrix(const std::string& name, const Shape& storedShape);
    /// Row sets of one weight matrix (a fused projection split into its parts), each as takeMatrix() gives it: F16
    /// and BF16 stay packed in place (the part lists its rows, no copy); other dtypes are copied out of the float32.
    std::vector<Tensor> takeMatrixRows(
        const std::string& name, const Shape& shape, const std::vector<std::vector<int64_t>>& parts);
    /// A matrix stored [in, out] (GPT-2's Conv1D) as a Linear [out, in]: F16 and BF16 are transposed once into a
    /// packed copy of the same type (half the bytes of float32, widened inside the products); other dtypes are
    /// transposed in float32.
    Tensor takeTransposedMatrix(const std::string& name, const Shape& storedShape);
    /// Marks a tensor as deliberately unused (tied duplicates, buffers), if present.
    void skip(const std::string& name);
    /// Throws Error listing the tensors of the file that were neither taken nor skipped.
    void expectAllUsed() const;
    const std::string& path() const { return m_path; }

private:
    /// The tensor stored `storedShape` as the matrix `matrix` (same elements): in place in the mapping when stored
    /// F32 (float-aligned), F16 or BF16, else a float32 copy.
    Tensor matrixInPlace(const std::string& name, const Shape& storedShape, const Shape& matrix);

    std::string m_path;
    std::shared_ptr<SafetensorsStore> m_store;
    std::set<std::string> m_used;
};

/// The row indices first .. first + count - 1 (a part of a fused projection, for matrixRows / takeMatrixRows).
std::vector<int64_t> rowRange(int64_t first, int64_t count);

/// Rows `rows` of a weight matrix (a part of a fused projection) in its storage: a packed matrix gives a packed part
/// over the same bytes (no copy), a float32 one a float32 copy; a row out of range throws Error naming `name`.
Tensor matrixRows(const Tensor& whole, const std::vector<int64_t>& rows, const std::string& name);

/// Throws Error naming `path` and listing (the first five of) the `names` that are not in `used`.
void expectAllTensorsUsed(
    const std::string& path, const std::vector<std::string>& names, const std::set<std::string>& used);

} // namespace attn
