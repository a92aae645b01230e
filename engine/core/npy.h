// SPDX-License-Identifier: MIT
#pragma once
#include "core/tensor.h"

#include <cstdint>
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

} // namespace attn
