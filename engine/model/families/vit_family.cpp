// SPDX-License-Identifier: MIT
// ViT and DeiT image classifiers.
#include "io/json_input.h"
#include "model/families/families.h"
#include "model/vit_model.h"

namespace attn::families {

ModelFamily vit()
{
    ModelFamily f;
    f.modelTypes = { "vit", "deit" };
    f.capabilities = kClassify;
    f.readConfig = [](const ConfigFields& f, ModelConfig& c) {
        c.kind = ModelKind::Vision;
        c.numLayers = f.integer("num_hidden_layers");
        c.numHeads = f.integer("num_attention_heads");
        c.numKvHeads = c.numHeads;
        c.hiddenSize = f.integer("hidden_size");
        c.intermediateSize = f.integer("intermediate_size");
        c.imageSize = f.integer("image_size");
        c.patchSize = f.integer("patch_size");
        c.numChannels = f.optInteger("num_channels", 3);
        c.normEps = f.optNumber("layer_norm_eps", 1e-12);
        c.activation = f.optString("hidden_act", "gelu");
        c.attentionBias = f.optBool("qkv_bias", true);
        if (c.patchSize <= 0 || c.imageSize % c.patchSize != 0)
            throw Error(f.source(),
                "image_size " + std::to_string(c.imageSize) + " is not a multiple of patch_size "
                    + std::to_string(c.patchSize));
        const nlohmann::json& j = f.json();
        if (j.contains("id2label") && j["id2label"].is_object()) {
            for (const auto& [k, v] : j["id2label"].items()) {
                size_t id = 0;
                try {
                    id = std::stoul(k);
                } catch (const std::exception&) {
                    throw Error(f.source(), "id2label key \"" + k + "\" is not an integer");
                }
                if (id > 1000000) throw Error(f.source(), "id2label key " + k + " is out of range");
                if (c.labels.size() <= id) c.labels.resize(id + 1);
                if (!v.is_string())
                    throw Error(f.source(), "id2label value for " + k + " must be a string, got " + describeJson(v));
                c.labels[id] = v.get<std::string>();
            }
        }
    };
    f.load = [](const ModelSource& s) -> std::shared_ptr<Model> { return loadVit(s); };
    return f;
}

} // namespace attn::families
