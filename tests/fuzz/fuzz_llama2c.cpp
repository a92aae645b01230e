// SPDX-License-Identifier: MIT
// llama2.c checkpoints (legacy and version 1): the header is validated against the file size and, when it passes,
// the weights are loaded (so every offset the header implies is read).
#include "fuzz_target.h"
#include "model/llama2c_format.h"
#include "model/model_loader.h"

AS_FUZZ_TARGET(llama2c)
{
    const std::string path = attn::fuzz::writeScratch("model.bin", data, size);
    attn::readLlama2cHeader(path);
    attn::loadModel(path);
}
