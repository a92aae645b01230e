// SPDX-License-Identifier: MIT
#pragma once
// A weight matrix kept in the format it was stored in (ggml quantization, f16, bf16, or plain f32), read in place
// from the file's mapping: resident memory is the file's size, not four bytes per weight (nor a second copy).
#include "quant/ggml_type.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace attn {

class PackedMatrix {
public:
    /// `rows` rows of `cols` elements of `type`, row r at data + r * rowBytes(); `owner` keeps `data` valid (the
    /// mapping). Row r of the matrix is stored row rowOrder[r] (empty: the identity), so that a permutation of rows
    /// (llama.cpp's Q/K layout) is undone without a copy. Throws Error when cols is not a whole number of blocks.
    PackedMatrix(GgmlType type, int64_t rows, int64_t cols, const uint8_t* data, std::shared_ptr<const void> owner,
        std::vector<int64_t> rowOrder = {});

    GgmlType type() const { return m_type; }
    int64_t rows() const { return m_rows; }
    int64_t cols() const { return m_cols; }
    uint64_t rowBytes() const { return m_rowBytes; }
    uint64_t bytes() const { return m_rowBytes * static_cast<uint64_t>(m_rows); }
    const uint8_t* row(int64_t r) const
    {
        return m_data + static_cast<uint64_t>(m_order.empty() ? r : m_order[static_cast<size_t>(r)]) * m_rowBytes;
    }
    /// The rows `rows` of this matrix (a part of a fused projection) over the same bytes and owner; throws Error for
    /// a row out of range.
    PackedMatrix rowSubset(const std::vector<int64_t>& rows) const;
    /// The whole matrix as row-major float32 where it is stored that way (f32, rows in order, float-aligned), so the
    /// products read it directly; null otherwise.
    const float* denseF32() const;
    /// Rows [r0, r0 + count) as float32 into dst [count, cols], exactly as ggml dequantizes them.
    void dequantizeRows(int64_t r0, int64_t count, float* dst) const;

private:
    GgmlType m_type;
    int64_t m_rows, m_cols;
    uint64_t m_rowBytes;
    const uint8_t* m_data;
    std::shared_ptr<const void> m_owner;
    std::vector<int64_t> m_order;
};

} // namespace attn
