// SPDX-License-Identifier: MIT
#pragma once
#include "model/model_config.h"

#include <cstdint>
#include <string>

namespace attn {

/// A llama2.c checkpoint (`run.c` legacy layout, or export "version 1" with the "ak42" magic), all float32.
struct Llama2cHeader {
    ModelConfig config; ///< modelType "llama2c", interleaved RoPE, RMSNorm 1e-5, SwiGLU
    int version = 0; ///< 0 = legacy, 1 = ak42 v1
    bool sharedClassifier = true;
    uint64_t headerBytes = 0; ///< where the weights start
    uint64_t seqLen = 0;
};

/// Reads and validates the header against the file size. Throws Error naming the file on anything
/// that is not a float32 llama2.c checkpoint (including the int8 "version 2" export).
Llama2cHeader readLlama2cHeader(const std::string& path);

/// True if the first bytes look like a Python pickle or a PyTorch zip archive (never loaded).
bool looksLikePickle(const std::string& path);

} // namespace attn
