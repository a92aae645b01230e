// SPDX-License-Identifier: MIT
#pragma once
// One alignment run: the source, and per hypothesis (the teacher-forced reference and/or the beams) its target
// pieces and the cross-attention of every decoder step, read through an attention source derived from the steps'
// queries and the encoding's keys (transformers; the RNN's attention is no query-key product, so its rows are kept).
// Word-level matrices are derived on request.
#include "align/alignment.h"
#include "align/stepwise_translation.h"
#include "attention_source/attention_source.h"
#include "core/tensor.h"
#include "session/translator.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attn::ui {

struct AlignmentHypothesis {
    std::string label; ///< "reference", "beam 2" or "greedy" (step-by-step decoding)
    std::string text;
    double score = 0.0; ///< beam score (length-normalised log-probability); the reference's own log-probability
    bool finished = false;
    AlignedSide target;
    /// Transformers: the cross-attention, rows [target pieces] x keys [source pieces] of every decoder layer and head,
    /// derived from the steps' queries (row j: the step that predicts target piece j). Null otherwise.
    std::shared_ptr<const AttentionSource> cross;
    /// Without `cross` (the RNN, hand-made runs): steps[j] is the cross-attention [layers, heads, K] of the step that
    /// predicts target piece j.
    std::vector<Tensor> steps;
    /// (source, target) word links of the other direction (a reverse model's last-layer head mean, argmax per its
    /// target word, transposed), when a reverse model is loaded.
    std::optional<Links> reverseLinks;

    /// Decoder steps (target pieces) so far.
    int64_t length() const { return cross ? cross->numQueries() : static_cast<int64_t>(steps.size()); }
    int64_t layers() const { return cross ? cross->numLayers() : steps.empty() ? 0 : steps[0].dim(0); }
    int64_t heads() const { return cross ? cross->numHeads() : steps.empty() ? 0 : steps[0].dim(1); }
};

struct AlignmentRun {
    AlignedSide source;
    std::vector<AlignmentHypothesis> hypotheses;
    bool stepwise = false; ///< one "greedy" hypothesis decoded so far by step-by-step decoding (maybe no step yet)
    int64_t layers() const { return empty() ? 0 : hypotheses[0].layers(); }
    int64_t heads() const { return empty() ? 0 : hypotheses[0].heads(); }
    bool empty() const { return hypotheses.empty() || hypotheses[0].length() == 0; }
};
using AlignmentRunPtr = std::shared_ptr<const AlignmentRun>;

/// How the heads and layers of a step become one weight per source piece.
struct AlignmentAggregation {
    enum class Heads { One, Mean, Max };
    Heads heads = Heads::Mean;
    int64_t head = 0; ///< with Heads::One
    int64_t layer = -1; ///< -1: the average of the layers
    bool operator==(const AlignmentAggregation&) const = default;
};

/// Piece-level [T, S] of `hyp` over the first `sourcePieces` keys (the RNN tutorial pads its keys), then merged into
/// words: [target words, source words]. Throws Error for a layer or head out of range, and when `stop` (polled
/// before each head's tile, as a superseded engine job is) says so.
Tensor wordMatrix(const AlignmentHypothesis& hyp, const AlignedSide& source, const AlignmentAggregation& aggregation,
    const std::function<bool()>& stop = {});

/// Runs `translator` on `sourceText`: with a non-empty `reference` it is teacher-forced (first hypothesis), and
/// beam search of `beamWidth` adds its beams (none when beamWidth is 0). A transformer's encoder and decoder steps run,
/// and its cross-attention is derived, on `backend` (null: the CPU attention core).
AlignmentRunPtr runAlignment(const Translator& translator, const std::string& sourceText, const std::string& reference,
    int64_t beamWidth, const std::shared_ptr<Backend>& backend = nullptr);

/// The state of step-by-step decoding as a run: `source` and one "greedy" hypothesis with the steps so far, its
/// cross-attention derived on `backend` as runAlignment's.
AlignmentRun stepwiseRun(const Translator& translator, AlignedSide source, const StepwiseTranslation& decoding,
    const std::shared_ptr<Backend>& backend = nullptr);

/// Fills every hypothesis' reverseLinks: `reverse` (translating target -> source) teacher-forces the source words
/// after the hypothesis' target words on `backend`, as runAlignment does. Throws Error when it splits the sentences
/// into other words than `run`'s model.
void addReverseLinks(AlignmentRun& run, const Translator& reverse, const std::shared_ptr<Backend>& backend = nullptr);

} // namespace attn::ui
