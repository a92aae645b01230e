// SPDX-License-Identifier: MIT
// llama2.c checkpoints: a binary header instead of config.json (probeModel reads it for a .bin).
#include "model/families/families.h"
#include "model/llama_model.h"

namespace attn::families {

ModelFamily llama2c()
{
    ModelFamily f;
    f.modelTypes = { "llama2c" };
    f.capabilities = kGenerate;
    f.load = [](const ModelSource& s) -> std::shared_ptr<Model> { return loadLlama2c(s); };
    return f;
}

} // namespace attn::families
