// SPDX-License-Identifier: MIT
#pragma once
// The encoder-decoder contract (MarianMT, BART, T5, Whisper): encode the source once, then run decoder positions
// against a self-attention KV cache plus the cross-attention keys and values of that encoding.
#include "model/kv_cache.h"
#include "model/model.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attn {

/// The source side: token ids (text models), log-mel features [mel bins, frames] (Whisper) or pixel values
/// [channels, H, W] (image-to-text models).
struct EncoderInput {
    std::vector<int64_t> tokens;
    Tensor features;
    // The members below have initializers so that the `{ tokens, features }` initializations stay complete.
    Tensor pixels {};
    /// Encoder states [S, D] computed by another model (a vision encoder): a decoder built without an encoder stack
    /// only projects them to its cross-attention keys and values.
    Tensor states {};
};

/// One encoding of the source. Immutable once built, so beams and sessions may share it.
struct EncoderOutput {
    Tensor hidden; ///< [S, D] final encoder states (after the stack's final norm where it has one)
    std::vector<Tensor> attention; ///< per encoder layer [heads, S, S], when asked for
    std::vector<Tensor> hiddenStates; ///< numLayers + 1 entries [S, D] when asked for, as HF reports them
    /// Per decoder layer, the cross-attention keys and values [heads, S, headDim], projected once here so that
    /// decode steps do not redo it.
    std::vector<Tensor> crossKeys, crossValues;
    /// With ForwardOptions::wantQueryKeys: per encoder layer the self-attention queries, keys and values
    /// [heads, S, headDim] (the Mechanisms tab reruns a head from them).
    std::vector<Tensor> queries, keys, values;
    double seconds = 0.0;
    /// Watched by backends that keep device copies of crossKeys / crossValues across decode steps.
    LifetimeToken lifetime;
    int64_t length() const { return hidden.empty() ? 0 : hidden.dim(0); }
};

/// A decoder step: StepResult's attention holds the causal self-attention [heads, q, past + q] per decoder layer,
/// crossAttention the decoder->encoder probabilities [heads, q, S] per decoder layer.
struct Seq2SeqStepResult : StepResult {
    std::vector<Tensor> crossAttention;
    /// With ForwardOptions::wantQueryKeys: per decoder layer the cross-attention queries [heads, q, headDim] (their
    /// keys and values are EncoderOutput::crossKeys / crossValues; the self-attention's are in the KV cache).
    std::vector<Tensor> crossQueries;
};

/// How an encoder-decoder's head mask (Intervention::headMask, HF head_mask semantics in every attention: each
/// head's probabilities multiplied after the softmax, the output projection's bias kept) addresses its heads: one
/// [rows, heads] mask stacks HF's head_mask, decoder_head_mask and cross_attn_head_mask. Rows 0 .. E - 1 are the
/// encoder's self-attention layers, E .. E + D - 1 the decoder's self-attention layers and E + D .. E + 2D - 1 its
/// cross-attention layers (E encoder, D decoder layers). encode() reads the first E rows and decode() the others, so
/// one mask serves a whole translation; importance maps and `prune` use the same rows.
struct Seq2SeqHeadRows {
    int64_t encoderLayers = 0;
    int64_t decoderLayers = 0;
    int64_t heads = 0;
    int64_t rows() const { return encoderLayers + 2 * decoderLayers; }
    int64_t decoderSelfRow(int64_t layer) const { return encoderLayers + layer; }
    int64_t crossRow(int64_t layer) const { return encoderLayers + decoderLayers + layer; }
    /// "enc L1", "dec L0", "cross L1": the attention kind and its own layer index of mask row `row`.
    std::string rowName(int64_t row) const;
};

/// The head-mask rows of the encoder-decoder `config` describes (encoder layers, decoder layers, decoder heads).
Seq2SeqHeadRows seq2seqHeadRows(const ModelConfig& config);

class EncoderDecoderModel : public Model {
public:
    /// Throws Error for an empty input, ids out of range, a source longer than the model allows, or features of the
    /// wrong shape (and for features given to a text model or tokens to a speech model).
    virtual std::shared_ptr<const EncoderOutput> encode(
        const EncoderInput& input, const ForwardOptions& options) const = 0;

    /// A self-attention cache for the decoder (no positions yet).
    KvCache newDecoderCache() const;

    /// Runs decoder `tokens` at positions cache.length() .. against `encoding` and appends them to the cache. On any
    /// error the cache is left as it was. Logits are [q, vocab].
    virtual Seq2SeqStepResult decode(const EncoderOutput& encoding, KvCache& cache, const std::vector<int64_t>& tokens,
        const ForwardOptions& options) const = 0;

    /// The first decoder input (config decoder_start_token_id).
    int64_t decoderStartToken() const { return m_config.decoderStartTokenId; }
    int64_t decoderLayers() const { return m_config.numDecoderLayers; }
    int64_t decoderHeads() const { return m_config.numDecoderHeads; }
    int64_t decoderHeadDim() const { return m_decoderHeadDim; }
    /// The rows of this model's head mask (Seq2SeqHeadRows).
    Seq2SeqHeadRows headRows() const;

protected:
    EncoderDecoderModel(ModelConfig config, int64_t decoderHeadDim);
    /// Throws Error unless `options` carries no intervention or only a head mask of headRows() shape (one head count
    /// for encoder and decoder, finite entries): key masks and head-output or residual edits are decoders' only.
    void checkHeadMask(const ForwardOptions& options) const;
    int64_t m_decoderHeadDim;
};

/// Plain greedy decoding from decoder_start_token_id with the KV cache: `steps` argmax tokens, stopping early at
/// EOS only when stopAtEos. Returns the generated ids and, if asked, each step's last-position logits [steps, V].
/// Every step runs with `base` (its intervention and cancel poll) without attention.
std::vector<int64_t> greedyDecode(const EncoderDecoderModel& model, const EncoderOutput& encoding, int64_t steps,
    bool stopAtEos, Tensor* stepLogits = nullptr, const ForwardOptions& base = {});

} // namespace attn
