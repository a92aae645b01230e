// SPDX-License-Identifier: MIT
#pragma once
// One input through a decoder or an encoder, as the main window and `attnscope-cli attention` both run it: the one
// place that decides whether a run keeps every attention matrix or only the queries and keys its views derive tiles
// from (ARCHITECTURE.md decision 2), and that hands the derived source on ready to read.
#include "attention_source/attention_source.h"
#include "model/model.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attn {

struct PromptOptions {
    /// Backend, progress, cancel, intervention and lastLogitsOnly of the forward; its wantAttention / wantQueryKeys
    /// are set by the run.
    ForwardOptions forward;
    /// Derive the attention when all of it (layers x heads x tokens x tokens floats) would take more than this many
    /// bytes; 0 derives whenever the model allows it.
    uint64_t materializeBytes = 0;
    /// Derived runs: gather every head's statistics and thumbnail from the forward's own probabilities, so the
    /// all-heads grid and the statistics table need no second pass (SummaryCollector).
    bool summarize = false;
    /// Derived runs: the source computes its tiles on the CPU attention core, with no progress or cancel callbacks,
    /// so another thread may read it while the backend stays with the thread that ran the forward.
    bool tilesOnCpu = false;
};

/// What one run produced.
struct PromptRun {
    /// The forward's result: logits, router logits, and every layer's attention when it was not derived.
    std::shared_ptr<const StepResult> result;
    /// Derived runs: the attention of every position, read from the run's own session, which it keeps alive (drive
    /// it no more); null when the attention is in result->attention.
    std::shared_ptr<const AttentionSource> derived;
};

/// Whether a run of `tokens` tokens on `config` with `options` derives its attention; `why` says what keeps a model
/// from it (Session::canDeriveAttention, or a head mask, which changes the probabilities after the softmax that
/// tiles of queries and keys recompute) when it is the model and not the size.
bool derivesAttention(
    const ModelConfig& config, int64_t tokens, const PromptOptions& options, std::string* why = nullptr);

/// Runs `ids` (with token types for encoders that take them) on `model` from an empty session. Throws Error on bad
/// input and Cancelled when the forward's callbacks cancel.
PromptRun runPrompt(std::shared_ptr<const Model> model, const std::vector<int64_t>& ids,
    const std::vector<int64_t>& types, const PromptOptions& options);

} // namespace attn
