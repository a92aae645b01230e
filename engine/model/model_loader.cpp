// SPDX-License-Identifier: MIT
#include "model/model_loader.h"

#include "model/family_registry.h"

namespace attn {

std::shared_ptr<Model> loadModel(const ModelSource& source)
{
    const std::string where = source.configPath.empty() ? source.folder : source.configPath;
    return familyOf(source.config.modelType, where).load(source);
}

std::shared_ptr<Model> loadModel(const std::string& path) { return loadModel(probeModel(path)); }

} // namespace attn
