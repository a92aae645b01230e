// SPDX-License-Identifier: MIT
#include "model/model_loader.h"

#include "core/error.h"
#include "model/bert_model.h"
#include "model/encdec_loaders.h"
#include "model/gguf_model.h"
#include "model/gpt2_model.h"
#include "model/llama_model.h"
#include "model/vit_model.h"

namespace attn {

std::shared_ptr<Model> loadModel(const ModelSource& source)
{
    if (source.format == ModelFormat::Llama2c)
        return loadLlama2c(source);
    if (source.format == ModelFormat::Gguf)
        return loadGgufModel(source);
    const std::string& t = source.config.modelType;
    if (t == "gpt2")
        return loadGpt2(source);
    if (t == "bert")
        return loadBert(source);
    if (t == "llama" || t == "mistral" || t == "qwen2")
        return loadHfLlama(source);
    if (t == "vit" || t == "deit")
        return loadVit(source);
    if (t == "marian" || t == "bart" || t == "whisper")
        return loadBartFamily(source);
    if (t == "t5")
        return loadT5(source);
    throw Error(source.configPath, "model_type \"" + t + "\" (" + modelKindName(source.config.kind)
            + ") cannot be run yet: this build runs gpt2, bert, llama, mistral, qwen2, vit, deit and llama2.c checkpoints");
}

std::shared_ptr<Model> loadModel(const std::string& path) { return loadModel(probeModel(path)); }

} // namespace attn
