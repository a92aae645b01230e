// SPDX-License-Identifier: MIT
#pragma once
#include "core/tensor.h"

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace attn {

/// NumPy .npy v1/v2 reading and v1 writing (little-endian, C order).
/// Reading accepts <f4, <f8 (converted to float32), <i8 and <i4, in C or Fortran order (returned in C order);
/// errors name the file.
Tensor readNpy(const std::string& path);
std::vector<int64_t> readNpyInts(const std::string& path, Shape* shape = nullptr);

void writeNpy(const std::string& path, const Tensor& tensor); ///< float32 '<f4'
void writeNpyInts(const std::string& path, const std::vector<int64_t>& values, const Shape& shape); ///< '<i8'

/// A float32 .npy written piece by piece in C order (an array larger than memory streams to disk). The header comes
/// first; finish() checks that exactly shape's element count was written.
class NpyFloatWriter {
public:
    NpyFloatWriter(const std::string& path, const Shape& shape); ///< throws Error naming the file
    void write(const float* data, int64_t count);
    void finish();
    /// Bytes of the whole file (header + data).
    static uint64_t fileBytes(const Shape& shape);

private:
    std::string m_path;
    std::ofstream m_out;
    int64_t m_left;
};

} // namespace attn
