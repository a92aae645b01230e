// SPDX-License-Identifier: MIT
#pragma once
#include "controller/attention_provider.h"
#include "model/model_source.h"

namespace attn::ui {

/// Encoder-decoder transformers (Marian, BART, T5) through the Translator that the alignment tab uses: a source
/// text and a teacher-forced target text give encoder self-, decoder self- and cross-attention from one pass.
/// Throws Error naming the model on failure.
std::unique_ptr<AttentionProvider> openSeq2SeqProvider(
    const ModelSource& source, ModelRegistry& models, const ProgressFn& progress);

/// RNN seq2seq folders (docs/rnn-seq2seq-format.md) the same way; their only attention is cross-attention, one head
/// per layer, from the alignment tab's teacher forcing. Throws Error naming the folder on failure.
std::unique_ptr<AttentionProvider> openRnnSeq2SeqProvider(
    const std::string& folder, ModelRegistry& models, const ProgressFn& progress);

} // namespace attn::ui
