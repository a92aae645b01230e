// SPDX-License-Identifier: MIT
#include "model/family_registry.h"

#include "core/error.h"
#include "model/families/families.h"

namespace attn {

const std::vector<ModelFamily>& modelFamilies()
{
    static const std::vector<ModelFamily> all
        = { families::gpt2(), families::bert(), families::llama(), families::gemma(), families::phi(), families::phi3(),
              families::gptNeox(), families::starcoder2(), families::opt(), families::llama2c(), families::vit(),
              families::bartLike(), families::t5(), families::rnnSeq2Seq(), families::visionEncoderDecoder() };
    return all;
}

const ModelFamily* findFamily(const std::string& modelType)
{
    for (const ModelFamily& f : modelFamilies())
        for (const std::string& t : f.modelTypes)
            if (t == modelType) return &f;
    return nullptr;
}

bool hasSelfAttention(const ModelConfig& config)
{
    const ModelFamily* f = findFamily(config.modelType);
    return !f || f->selfAttention;
}

const ModelFamily& familyOf(const std::string& modelType, const std::string& source)
{
    if (const ModelFamily* f = findFamily(modelType)) return *f;
    std::string list;
    for (const std::string& t : supportedModelTypes())
        list += (list.empty() ? "" : ", ") + t;
    throw Error(source, "unsupported model_type \"" + modelType + "\"; supported: " + list);
}

const std::vector<std::string>& supportedModelTypes()
{
    static const std::vector<std::string> types = [] {
        std::vector<std::string> all;
        for (const ModelFamily& f : modelFamilies())
            if (f.readConfig) all.insert(all.end(), f.modelTypes.begin(), f.modelTypes.end());
        return all;
    }();
    return types;
}

} // namespace attn
