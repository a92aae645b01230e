// SPDX-License-Identifier: MIT
#pragma once
#include "controller/attention_provider.h"
#include "model/model_source.h"

namespace attn {
class ModelRegistry;
}

namespace attn::ui {

/// Image-to-text models (HF VisionEncoderDecoderModel) on the engine thread: the model (the registry's copy, which the
/// Mechanisms tab's heads share), its tokenizer, the image
/// being captioned and the caption so far, driven by the Caption tab's requests (AttentionProvider::caption).
/// The text views have nothing to show for them: tokenize / runPair say so. Throws Error naming the model.
std::unique_ptr<AttentionProvider> openCaptionProvider(
    const ModelSource& source, ModelRegistry& models, const ProgressFn& progress);

} // namespace attn::ui
