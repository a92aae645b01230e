// SPDX-License-Identifier: MIT
#pragma once
// The narrow engine facade the engine worker drives: open a model, tokenize, run. Lives on the engine thread only.
#include "model/attention_snapshot.h"
#include "model/model_summary.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace attn::ui {

/// Progress (step, total); returns false to cancel (the provider then throws attn::Cancelled).
using ProgressFn = std::function<bool(int step, int total)>;

class AttentionProvider {
public:
    virtual ~AttentionProvider() = default;
    virtual const ModelSummary& summary() const = 0;
    /// Throws Error when the model has no tokenizer or the text cannot be tokenized.
    virtual std::vector<TokenChip> tokenize(const std::string& text) = 0;
    /// One forward pass over `text`; throws Error on failure and Cancelled when progress() returns false.
    virtual SnapshotPtr run(const std::string& text, const ProgressFn& progress) = 0;
};

/// Opens a model with `path` (anything probeModel accepts); throws Error naming the path on failure.
using ProviderFactory = std::function<std::unique_ptr<AttentionProvider>(const std::string& path, const ProgressFn&)>;

/// The real engine: probe, load weights and tokenizer, run forward passes.
std::unique_ptr<AttentionProvider> openEngineProvider(const std::string& path, const ProgressFn& progress);

} // namespace attn::ui
