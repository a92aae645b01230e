// SPDX-License-Identifier: MIT
#include "quant/packed_matrix.h"

#include "core/error.h"
#include "quant/dequantize.h"

#include <cstdint>

namespace attn {

PackedMatrix::PackedMatrix(GgmlType type, int64_t rows, int64_t cols, const uint8_t* data,
    std::shared_ptr<const void> owner, std::vector<int64_t> rowOrder)
    : m_type(type)
    , m_rows(rows)
    , m_cols(cols)
    , m_data(data)
    , m_owner(std::move(owner))
    , m_order(std::move(rowOrder))
{
    const GgmlTypeTraits& t = ggmlTypeTraits(type);
    if (cols % t.blockSize != 0)
        throw Error(std::string("a packed ") + t.name + " matrix needs rows of whole " + std::to_string(t.blockSize)
            + "-element blocks, not " + std::to_string(cols));
    if (!m_order.empty() && static_cast<int64_t>(m_order.size()) != rows)
        throw Error("a packed matrix's row order must list every row");
    m_rowBytes = static_cast<uint64_t>(cols / t.blockSize * t.blockBytes);
}

PackedMatrix PackedMatrix::rowSubset(const std::vector<int64_t>& rows) const
{
    std::vector<int64_t> order;
    order.reserve(rows.size());
    for (const int64_t r : rows) {
        if (r < 0 || r >= m_rows)
            throw Error("row " + std::to_string(r) + " of a packed matrix of " + std::to_string(m_rows) + " rows");
        order.push_back(m_order.empty() ? r : m_order[static_cast<size_t>(r)]);
    }
    return PackedMatrix(m_type, static_cast<int64_t>(rows.size()), m_cols, m_data, m_owner, std::move(order));
}

const float* PackedMatrix::denseF32() const
{
    if (m_type != GgmlType::F32 || !m_order.empty() || reinterpret_cast<uintptr_t>(m_data) % alignof(float) != 0)
        return nullptr;
    return reinterpret_cast<const float*>(m_data);
}

void PackedMatrix::dequantizeRows(int64_t r0, int64_t count, float* dst) const
{
    for (int64_t r = 0; r < count; ++r)
        dequantizeRow(m_type, row(r0 + r), dst + r * m_cols, m_cols);
}

} // namespace attn
