// SPDX-License-Identifier: MIT
#pragma once
// What the Caption tab asks of the engine thread and what comes back: a request kind of the one engine controller.
#include "core/tensor.h"
#include "model/vision_model.h"
#include "session/caption_run.h"

#include <QImage>
#include <QMetaType>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

namespace attn::ui {

struct CaptionRequest {
    enum class Action {
        Open, ///< decode `image`, encode it and start a caption with `options`
        Restart, ///< the same image, a fresh caption with `options`
        Step, ///< one more word
        Back, ///< drop the last word
    };
    Action action = Action::Step;
    QString image; ///< Open: an image file
    CaptionOptions options; ///< its headMask applies to the encoder and every decoder step
    int64_t replay = 0; ///< Restart: step again to this many words (a changed head mask keeps the caption's length)
};

/// A whole caption (to EOS or the word limit), special tokens (EOS) left out.
struct CaptionText {
    std::vector<int64_t> ids;
    std::vector<QString> words; ///< as the strip labels them
    QString text;
};

/// With a head mask: the whole caption of the same image and options without and with the mask.
struct CaptionComparison {
    CaptionText unmasked;
    CaptionText masked;
};

/// The caption as it stands after a request; immutable, shared with the GUI thread.
struct CaptionState {
    QString source; ///< the image file
    QImage image; ///< as the model sees it (after resizing)
    PatchGrid grid;
    int64_t prefixTokens = 1; ///< encoder tokens before the patches ([CLS], DeiT's distillation token)
    int64_t layers = 0; ///< decoder layers
    int64_t heads = 0; ///< decoder heads
    Seq2SeqHeadRows headRows; ///< the rows of the captioner's head mask
    CaptionOptions options;
    std::vector<CaptionWord> words;
    std::vector<QString> wordTexts; ///< one per word, as the strip labels it
    QString caption; ///< the words as text, special tokens left out
    bool finished = false;
    std::optional<CaptionComparison> comparison; ///< only with a head mask

    /// Word w's cross-attention over the patches in `layer`: head h, or the mean of the heads for h < 0.
    /// Throws Error for a word, layer or head outside the state.
    std::vector<float> patchMap(size_t word, int64_t layer, int64_t head) const;
    /// Whether the words carry the unmodified model's cross-attention (with a head mask).
    bool hasDifference() const;
    /// patchMap with the mask minus the same map of the unmodified model for the same word after the same words
    /// (positive: the mask moved attention onto the patch). Throws Error as patchMap does, and without hasDifference().
    std::vector<float> patchDifference(size_t word, int64_t layer, int64_t head) const;
};
using CaptionPtr = std::shared_ptr<const CaptionState>;

/// An image decoded and preprocessed for a captioner's encoder.
struct CaptionImage {
    QString source;
    Tensor pixels; ///< [channels, H, W]
    QImage image; ///< the pixels as the model sees them
    PatchGrid grid;
};

/// Decodes `path` and preprocesses it as `encoder` says. Throws Error naming the file.
CaptionImage loadCaptionImage(const VisionModel& encoder, const QString& path);

/// The state of `run` over `image` (word texts from the captioner's tokenizer).
CaptionPtr captionState(const Captioner& captioner, const CaptionRun& run, const CaptionImage& image,
    std::optional<CaptionComparison> comparison = std::nullopt);

/// `run`'s words as the strip labels them and its caption text, special tokens left out.
CaptionText captionText(const Captioner& captioner, const CaptionRun& run);

} // namespace attn::ui

Q_DECLARE_METATYPE(attn::ui::CaptionRequest)
