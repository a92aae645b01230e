// SPDX-License-Identifier: MIT
#pragma once
// Engine-thread work of the Pruning tab: head importance and the greedy pruning curve of the main input or of a text
// file of inputs, through the engine code `attnscope-cli prune` runs (analysis/head_importance.h); for an image
// classifier, of labelled images (analysis/head_importance_classes.h); for a transformer translator, of a file of
// sentence pairs (analysis/translation_importance.h).
#include "analysis/head_importance.h"
#include "model/seq2seq_model.h"
#include "service/engine_context.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attn::ui {

/// What is pruned: the main input's tokens, or (when `corpusPath` is set) every non-empty line of that file, read as
/// `prune --corpus` reads it (for a translator, sentence pairs: readSentencePairs); for an image classifier the image
/// files of `images`, each labelled by the class its file name names (labelInFileName).
struct PruningInputs {
    std::vector<int64_t> tokens;
    std::string corpusPath;
    std::vector<std::string> images;
};

/// What the loss and accuracy of a result are of.
enum class PruningTarget {
    NextTokens, ///< a decoder's next tokens
    Classes, ///< the true classes of images (an image classifier)
    Translations, ///< reference translations, teacher-forced; accuracy is exact match of greedy translations
};

struct PruningResult {
    /// [layers, heads], nats (headImportance, classHeadImportance); for a translator [rows, heads] of `rows`
    /// (translationHeadImportance).
    Tensor importance;
    PruningTarget target = PruningTarget::NextTokens;
    Seq2SeqHeadRows rows; ///< translators: what each row of importance is
    double unmodifiedLoss = 0.0; ///< mean loss of the unmodified model, nats
    PruningCurve curve;
    int64_t inputs = 0; ///< inputs (lines) the numbers are over
    std::string basis; ///< what was pruned, for the status line
};

using PruningResultPtr = std::shared_ptr<const PruningResult>;

/// Importance and curve of `inputs` under the decoder, image classifier or transformer translator at `modelPath` (the
/// registry's copy, the context's backend). hooks.layerDone gets the passes done of both stages together;
/// hooks.cancelRequested stops it with Cancelled. Throws Error for a model that is none of these, a corpus that
/// cannot be read or has no text or pair, no image, or an image that cannot be read or whose name names no class.
PruningResultPtr pruneHeads(
    EngineContext& context, const std::string& modelPath, const PruningInputs& inputs, const RerunHooks& hooks);

} // namespace attn::ui
