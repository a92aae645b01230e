// SPDX-License-Identifier: MIT
#pragma once
// Which OpenBLAS kernels the engine's matrix products run on.
#include <string>

namespace attn {

/// The OpenBLAS core the products use ("SkylakeX", "Haswell", ...). The first call makes sure it fits this CPU;
/// see blas_kernels.cpp. Call it once while no other thread uses BLAS (model/layers.cpp does so before main).
const std::string& blasKernels();

} // namespace attn
