// SPDX-License-Identifier: MIT
#include "model/model_loader.h"

#include "model/family_registry.h"
#include "model/gguf_model.h"

namespace attn {

std::shared_ptr<Model> loadModel(const ModelSource& source)
{
    // A GGUF file names its architecture like a config.json does, but its tensors follow llama.cpp's layout.
    if (source.format == ModelFormat::Gguf)
        return loadGgufModel(source);
    const std::string where = source.configPath.empty() ? source.folder : source.configPath;
    return familyOf(source.config.modelType, where).load(source);
}

std::shared_ptr<Model> loadModel(const std::string& path) { return loadModel(probeModel(path)); }

} // namespace attn
