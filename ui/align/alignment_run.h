// SPDX-License-Identifier: MIT
#pragma once
// One alignment run: the source, and per hypothesis (the teacher-forced reference and/or the beams) its target
// pieces and the cross-attention of every decoder step. Word-level matrices are derived on request.
#include "align/alignment.h"
#include "session/translator.h"
#include "core/tensor.h"

#include <memory>
#include <string>
#include <vector>

namespace attn::ui {

struct AlignmentHypothesis {
    std::string label; ///< "reference" or "beam 2"
    std::string text;
    double score = 0.0; ///< beam score (length-normalised log-probability); the reference's own log-probability
    bool finished = false;
    AlignedSide target;
    /// steps[j]: cross-attention [layers, heads, K] of the step that predicts target piece j.
    std::vector<Tensor> steps;
};

struct AlignmentRun {
    AlignedSide source;
    std::vector<AlignmentHypothesis> hypotheses;
    int64_t layers() const { return hypotheses.empty() ? 0 : hypotheses[0].steps[0].dim(0); }
    int64_t heads() const { return hypotheses.empty() ? 0 : hypotheses[0].steps[0].dim(1); }
};
using AlignmentRunPtr = std::shared_ptr<const AlignmentRun>;

/// How the heads and layers of a step become one weight per source piece.
struct AlignmentAggregation {
    enum class Heads { One, Mean, Max };
    Heads heads = Heads::Mean;
    int64_t head = 0; ///< with Heads::One
    int64_t layer = -1; ///< -1: the average of the layers
};

/// Piece-level [T, S] of `hyp` over the first `sourcePieces` keys (the RNN tutorial pads its keys), then merged into
/// words: [target words, source words]. Throws Error for a layer or head out of range.
Tensor wordMatrix(const AlignmentHypothesis& hyp, const AlignedSide& source, const AlignmentAggregation& aggregation);

/// Runs `translator` on `sourceText`: with a non-empty `reference` it is teacher-forced (first hypothesis), and
/// beam search of `beamWidth` adds its beams (none when beamWidth is 0).
AlignmentRunPtr runAlignment(
    const Translator& translator, const std::string& sourceText, const std::string& reference, int64_t beamWidth);

} // namespace attn::ui
