// SPDX-License-Identifier: MIT
#pragma once
// Head importance and greedy pruning for transformer translators (MarianMT, BART, T5): the drop in the teacher-forced
// log-probability of the reference translations when a head is removed, and the loss and exact-match accuracy of
// greedy translations as heads are removed least important first. Heads are the rows of Seq2SeqHeadRows: encoder
// self-attention, decoder self-attention and cross-attention layers, stacked. The translator counterpart of
// head_importance.h, for `attnscope-cli prune` and the Pruning tab.
#include "analysis/head_importance.h"
#include "core/tensor.h"
#include "intervention/layer_reuse.h"
#include "model/seq2seq_model.h"

#include <cstdint>
#include <vector>

namespace attn {

/// A source sentence and its reference translation as ids (the target ending with EOS, Translator::target).
struct SentencePair {
    std::vector<int64_t> source;
    std::vector<int64_t> target;
};

struct TranslationScore {
    /// Mean teacher-forced log-probability of the reference tokens (EOS included), pooled over every pair (nats).
    double logProb = 0.0;
    /// Share of pairs whose greedy translation (argmax from decoder_start_token_id, at most the reference's length,
    /// stopping at EOS) is the reference exactly; NaN when not asked for.
    double exactMatch = 0.0;
};

/// The score of `pairs` under `headMask` ([rows, heads] of model.headRows(); empty: none); exact match only when
/// `greedy`. Throws Error when there is no pair or a reference is empty.
TranslationScore translationScore(const EncoderDecoderModel& model, const std::vector<SentencePair>& pairs,
    const Tensor& headMask, const ForwardOptions& base, bool greedy);

/// [rows, heads] of model.headRows(): translationScore(unmodified).logProb - translationScore(head removed).logProb.
/// *unmodified receives the first term when not null. hooks.layerDone gets (passes done, pairs x (1 + heads)), a pass
/// being one pair's encoding and teacher-forced decoding; hooks.cancelRequested is polled inside them; either stops
/// it with Cancelled.
Tensor translationHeadImportance(const EncoderDecoderModel& model, const std::vector<SentencePair>& pairs,
    const ForwardOptions& base, double* unmodified = nullptr, const RerunHooks& hooks = {});

/// Heads removed in pruningOrder(importance): after each removal the mean teacher-forced loss of the references and
/// (PruningCurve::accuracy) the exact-match share of greedy translations. copyPositions stays 0. hooks over
/// (heads + 1) x pairs passes, each a pair's teacher-forced and greedy decoding.
PruningCurve translationPruning(const EncoderDecoderModel& model, const std::vector<SentencePair>& pairs,
    const Tensor& importance, const ForwardOptions& base, const RerunHooks& hooks = {});

/// A [rows, heads] mask of ones (model.headRows()) with `heads` (rows, heads) set to `value`.
Tensor seq2seqHeadMaskWith(const EncoderDecoderModel& model, const std::vector<HeadRef>& heads, float value);

} // namespace attn
