// SPDX-License-Identifier: MIT
#pragma once
// Captioning one image word by word with an image-to-text model, as `attnscope-cli caption`, the Caption tab and the
// caption figure all do it: greedy, sampled or beam-searched, each word kept with its cross-attention over the image,
// and steppable back.
#include "model/vision_encoder_decoder.h"
#include "session/beam_search.h"
#include "session/sampler.h"
#include "tokenizer/tokenizer.h"

#include <memory>
#include <string>
#include <vector>

namespace attn {

/// An image-to-text model with its decoder's tokenizer.
struct Captioner {
    std::shared_ptr<const VisionEncoderDecoderModel> model;
    std::shared_ptr<const Tokenizer> tokenizer;

    /// The caption of generated ids, special tokens (EOS) left out.
    std::string text(const std::vector<int64_t>& ids) const;
    /// One word as the strip labels it: its text without the leading space of byte-level BPE.
    std::string word(int64_t id) const;
};

/// Loads the model and the tokenizer beside it. Throws Error naming the path for another kind of model or a folder
/// without a tokenizer.
Captioner loadCaptioner(const std::string& path);

enum class CaptionStrategy { Greedy, Sample, Beam };

struct CaptionOptions {
    CaptionStrategy strategy = CaptionStrategy::Greedy;
    int64_t beamWidth = 4; ///< Beam: hypotheses kept (HF-style length-normalised scores)
    int64_t maxNewTokens = 20;
    SamplerOptions sampling; ///< Sample: temperature, top-p, top-k, seed (run.c's sampler)
    /// Empty, or the model's [E + 2D, heads] head mask (Seq2SeqHeadRows, HF head_mask semantics) that every decoder
    /// step applies; the encoding the run reads must come from encodeImage() under the same mask.
    Tensor headMask;
};

/// One generated word.
struct CaptionWord {
    int64_t token = 0;
    float probability = 0.0f; ///< the model's softmax probability of this token at its step
    Tensor crossAttention; ///< [decoder layers, heads, S]: the step's query over the encoder tokens
    /// With CaptionRun's unmasked encoding: the cross-attention [decoder layers, heads, S] of the unmodified model at
    /// the same step after the same words (teacher-forced), which the Caption tab's difference map subtracts from
    /// crossAttention; empty otherwise.
    Tensor unmaskedCrossAttention;
};

/// The encoding of preprocessed `pixels` [channels, H, W] with the encoder rows of `headMask` applied (empty: the
/// unmodified encoder), on `options`' backend and with its progress. Throws Error for a mask of another shape.
std::shared_ptr<const EncoderOutput> encodeImage(
    const VisionEncoderDecoderModel& model, const Tensor& pixels, const Tensor& headMask, ForwardOptions options);

class CaptionRun {
public:
    /// Beam options search the whole caption here (beams branch KV caches) and step() then reveals it word by word.
    /// Throws Error for a beam width or token limit below 1.
    /// With `unmasked` (the image's encoding by the unmodified encoder), every step also feeds its token to the
    /// decoder without the head mask and keeps that decoder's cross-attention as the word's unmaskedCrossAttention.
    CaptionRun(std::shared_ptr<const VisionEncoderDecoderModel> model, std::shared_ptr<const EncoderOutput> encoding,
        const CaptionOptions& options, std::shared_ptr<const EncoderOutput> unmasked = nullptr);

    /// Generates the next word; false (nothing changes) when finished.
    bool step();
    /// Drops the last word (the sampler rewinds with it, so stepping again draws the same token).
    void back();
    bool finished() const;
    const std::vector<CaptionWord>& words() const { return m_words; }
    std::vector<int64_t> ids() const;
    const CaptionOptions& options() const { return m_options; }

private:
    std::shared_ptr<const VisionEncoderDecoderModel> m_model;
    std::shared_ptr<const EncoderOutput> m_encoding;
    CaptionOptions m_options;
    Sampler m_sampler;
    std::vector<std::unique_ptr<BeamDecoder>> m_states; ///< m_states[i]: the decoder fed the start token + i words
    std::vector<std::unique_ptr<BeamDecoder>> m_unmaskedStates; ///< the same without the mask; empty without one
    std::vector<uint64_t> m_samplerStates; ///< the sampler before word i was drawn
    std::vector<int64_t> m_beamTokens; ///< Beam: the best hypothesis
    std::vector<CaptionWord> m_words;
};

/// The cross-attention of every word over the image patches only (prefix tokens dropped): [words, heads, patches],
/// for one decoder layer (throws Error outside the model's layers).
Tensor wordPatchAttention(const std::vector<CaptionWord>& words, int64_t layer, int64_t prefixTokens);

} // namespace attn
