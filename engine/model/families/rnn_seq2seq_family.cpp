// SPDX-License-Identifier: MIT
// RNN encoder-decoders with attention (docs/rnn-seq2seq-format.md), and the PyTorch tutorial's folder layout
// (encoder.safetensors + decoder.safetensors + vocab_and_pairs.json, no config.json).
#include "model/families/families.h"
#include "model/rnn_seq2seq.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace attn::families {

ModelFamily rnnSeq2Seq()
{
    ModelFamily f;
    f.modelTypes = { "rnn_seq2seq", "seq2seq_attn_tutorial" }; // the second is the tutorial layout's
    f.capabilities = kTranslate | kAlign;
    f.selfAttention = false;
    f.readConfig = [](const ConfigFields& f, ModelConfig& c) {
        c.kind = ModelKind::EncoderDecoder;
        c.architecture = f.optString("cell", "gru") + " + " + f.optString("attention", "bahdanau") + " attention";
        c.numLayers = c.numDecoderLayers = f.optInteger("num_layers", 1);
        c.numHeads = c.numDecoderHeads = c.numKvHeads = 1; // one attention distribution per decoder step
        c.hiddenSize = f.integer("hidden_size");
        c.headDim = c.hiddenSize;
        const nlohmann::json& j = f.json();
        c.vocabSize = j.contains("target_vocab") && j["target_vocab"].is_array()
            ? static_cast<int64_t>(j["target_vocab"].size())
            : 0;
        c.maxPositions = f.optInteger("max_length", 0);
        c.decoderStartTokenId = f.optInteger("sos_id", 0);
        c.eosTokenId = f.optInteger("eos_id", 1);
    };
    f.load = [](const ModelSource& s) -> std::shared_ptr<Model> { return loadRnnSeq2Seq(s.folder); };
    f.probeFolder = [](const std::string& folder) -> std::optional<ModelConfig> {
        const fs::path dir(folder);
        if (!fs::exists(dir / "encoder.safetensors") || !fs::exists(dir / "decoder.safetensors")
            || !fs::exists(dir / "vocab_and_pairs.json"))
            return std::nullopt;
        return loadRnnSeq2Seq(folder)->config(); // the tutorial layout keeps its sizes in the tensors
    };
    return f;
}

} // namespace attn::families
