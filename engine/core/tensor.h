// SPDX-License-Identifier: MIT
#pragma once
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace attn {

using Shape = std::vector<int64_t>;

class PackedMatrix;

std::string shapeToString(const Shape& shape);
/// Element count; throws Error (prefixed "WHERE: " when given) for a negative dimension or a product that
/// overflows 64 bits.
int64_t shapeNumel(const Shape& shape, const std::string& where = {});
/// shapeNumel(shape) * elementSize, checked the same way.
int64_t shapeBytes(const Shape& shape, int64_t elementSize, const std::string& where = {});

/// A dense row-major float32 tensor. All compute is fp32. A weight matrix may instead be packed: kept in its file's
/// block format (ggml quantization, f16, bf16; quant/packed_matrix.h), widened inside linear() and gatherRows() only.
/// A packed tensor has a shape [rows, cols] and no float data (data() is null, storage() empty).
class Tensor {
public:
    Tensor() = default;
    explicit Tensor(Shape shape); ///< zero-filled
    Tensor(Shape shape, std::vector<float> data); ///< throws Error if sizes disagree
    static Tensor fromPacked(std::shared_ptr<const PackedMatrix> matrix);

    const Shape& shape() const { return m_shape; }
    int rank() const { return static_cast<int>(m_shape.size()); }
    /// Size of dimension i; negative i counts from the end.
    int64_t dim(int i) const;
    int64_t numel() const { return m_packed ? m_packedNumel : static_cast<int64_t>(m_data.size()); }
    bool empty() const { return m_data.empty() && !m_packed; }
    /// The packed matrix, or null for a dense tensor.
    const PackedMatrix* packed() const { return m_packed.get(); }

    float* data() { return m_data.data(); }
    const float* data() const { return m_data.data(); }
    std::vector<float>& storage() { return m_data; }
    const std::vector<float>& storage() const { return m_data; }

    float& at(std::initializer_list<int64_t> index);
    float at(std::initializer_list<int64_t> index) const;

    /// Same data, another shape with the same element count (throws Error otherwise).
    Tensor reshaped(Shape shape) const&;
    Tensor reshaped(Shape shape) &&;
    /// Throws Error naming `what` if the shape differs from `expected`.
    void expectShape(const Shape& expected, const std::string& what) const;

private:
    int64_t offset(std::initializer_list<int64_t> index) const;
    Shape m_shape;
    std::vector<float> m_data;
    std::shared_ptr<const PackedMatrix> m_packed;
    int64_t m_packedNumel = 0;
};

} // namespace attn
