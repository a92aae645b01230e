// SPDX-License-Identifier: MIT
#pragma once
#include "model/model.h"
#include "model/model_source.h"

#include <memory>
#include <vector>

namespace attn {

struct Gpt2Layer {
    Tensor ln1w, ln1b, attnW, attnB, projW, projB, ln2w, ln2b, fcW, fcB, fcProjW, fcProjB; ///< weights [out, in]
};

/// GPT-2's weights, every projection a Linear [out, in]; wte is also the LM head, wpe stays dense.
struct Gpt2Weights {
    std::vector<Gpt2Layer> layers;
    Tensor wte, wpe, lnfW, lnfB;
};

/// GPT2LMHeadModel (or a bare GPT2Model) from a safetensors folder.
std::shared_ptr<DecoderModel> loadGpt2(const ModelSource& source);
/// The GPT-2 model over weights read elsewhere (a GGUF file).
std::shared_ptr<DecoderModel> makeGpt2(ModelConfig config, Gpt2Weights weights);

} // namespace attn
