// SPDX-License-Identifier: MIT
#include "core/tensor.h"

#include "core/checked.h"
#include "core/error.h"
#include "quant/packed_matrix.h"

namespace attn {

std::string shapeToString(const Shape& shape)
{
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i)
            s += ", ";
        s += std::to_string(shape[i]);
    }
    return s + "]";
}

int64_t shapeNumel(const Shape& shape, const std::string& where)
{
    const auto fail = [&](const std::string& what) { return where.empty() ? Error(what) : Error(where, what); };
    int64_t n = 1;
    for (int64_t d : shape) {
        if (d < 0) throw fail("negative dimension in shape " + shapeToString(shape));
        const auto next = checkedMul(n, d);
        if (!next) throw fail("shape " + shapeToString(shape) + " has more elements than fit in 64 bits");
        n = *next;
    }
    return n;
}

int64_t shapeBytes(const Shape& shape, int64_t elementSize, const std::string& where)
{
    return mulOrThrow(shapeNumel(shape, where), elementSize, where.empty() ? "tensor" : where,
        "shape " + shapeToString(shape) + " x " + std::to_string(elementSize) + "-byte elements");
}

Tensor::Tensor(Shape shape)
    : m_shape(std::move(shape))
    , m_data(static_cast<size_t>(shapeNumel(m_shape)), 0.0f)
{
}

Tensor::Tensor(Shape shape, std::vector<float> data)
    : m_shape(std::move(shape))
    , m_data(std::move(data))
{
    if (shapeNumel(m_shape) != static_cast<int64_t>(m_data.size()))
        throw Error("tensor shape " + shapeToString(m_shape) + " does not match " + std::to_string(m_data.size())
            + " values");
}

Tensor Tensor::fromPacked(std::shared_ptr<const PackedMatrix> matrix)
{
    Tensor t;
    t.m_shape = { matrix->rows(), matrix->cols() };
    t.m_packedNumel = matrix->rows() * matrix->cols();
    t.m_packed = std::move(matrix);
    return t;
}

int64_t Tensor::dim(int i) const
{
    const int r = rank();
    const int k = i < 0 ? r + i : i;
    if (k < 0 || k >= r)
        throw Error("dimension " + std::to_string(i) + " out of range for shape " + shapeToString(m_shape));
    return m_shape[static_cast<size_t>(k)];
}

int64_t Tensor::offset(std::initializer_list<int64_t> index) const
{
    if (index.size() != m_shape.size())
        throw Error("index rank " + std::to_string(index.size()) + " != tensor rank " + std::to_string(rank()));
    int64_t off = 0;
    size_t d = 0;
    for (int64_t i : index) {
        if (i < 0 || i >= m_shape[d])
            throw Error("index out of range for shape " + shapeToString(m_shape));
        off = off * m_shape[d] + i;
        ++d;
    }
    return off;
}

float& Tensor::at(std::initializer_list<int64_t> index) { return m_data[static_cast<size_t>(offset(index))]; }
float Tensor::at(std::initializer_list<int64_t> index) const { return m_data[static_cast<size_t>(offset(index))]; }

Tensor Tensor::reshaped(Shape shape) const&
{
    return Tensor(std::move(shape), m_data);
}

Tensor Tensor::reshaped(Shape shape) &&
{
    return Tensor(std::move(shape), std::move(m_data));
}

void Tensor::expectShape(const Shape& expected, const std::string& what) const
{
    if (m_shape != expected)
        throw Error(what + ": expected shape " + shapeToString(expected) + ", got " + shapeToString(m_shape));
}

} // namespace attn
