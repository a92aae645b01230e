// SPDX-License-Identifier: MIT
#include "model/model_loader.h"

#include "model/family_registry.h"
#include "model/gguf_model.h"

#include <atomic>

namespace attn {

namespace {
std::atomic<uint64_t> g_loads { 0 };
} // namespace

uint64_t modelLoads()
{
    return g_loads.load();
}

std::shared_ptr<Model> loadModel(const ModelSource& source)
{
    g_loads.fetch_add(1);
    // A GGUF file names its architecture like a config.json does, but its tensors follow llama.cpp's layout.
    if (source.format == ModelFormat::Gguf)
        return loadGgufModel(source);
    const std::string where = source.configPath.empty() ? source.folder : source.configPath;
    return familyOf(source.config.modelType, where).load(source);
}

std::shared_ptr<Model> loadModel(const std::string& path) { return loadModel(probeModel(path)); }

} // namespace attn
