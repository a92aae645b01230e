// SPDX-License-Identifier: MIT
#pragma once
// The narrow engine facade the engine worker drives: open a model, tokenize, run. Lives on the engine thread only.
#include "caption/caption_state.h"
#include "model/attention_snapshot.h"
#include "model/model_summary.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace attn {
class Backend;
class ModelRegistry;
}

namespace attn::ui {

/// Progress (step, total); returns false to cancel (the provider then throws attn::Cancelled). A negative step only
/// asks whether to go on and reports nothing (polled inside a layer, see cancelCheck).
using ProgressFn = std::function<bool(int step, int total)>;

/// Which attention of a run a snapshot holds.
enum class AttentionKind { Self, EncoderSelf, DecoderSelf, Cross };

/// Everything one run produced; immutable, shared with the GUI thread.
struct RunResult {
    std::string text; ///< the input text that was tokenized (the source of an encoder-decoder)
    std::vector<TokenChip> source; ///< the input (the encoder side of an encoder-decoder)
    std::vector<TokenChip> target; ///< encoder-decoders: the decoder inputs (start token first); empty otherwise
    /// One snapshot per kind, the default view first (Self for single-stack models; cross-attention last).
    std::vector<std::pair<AttentionKind, SnapshotPtr>> views;
    /// Mixture-of-experts models: per layer the router logits [tokens, experts] and the experts each token uses.
    std::vector<Tensor> routerLogits;
    int64_t expertsPerToken = 0;
    /// What the run did that the user should know (a long input cut to its last tokens, or run past the model's
    /// trained length); empty when nothing.
    std::string notice;
    /// The snapshot of `kind`, or null when the run has none.
    SnapshotPtr view(AttentionKind kind) const;
};
using RunPtr = std::shared_ptr<const RunResult>;

class AttentionProvider {
public:
    virtual ~AttentionProvider() = default;
    virtual const ModelSummary& summary() const = 0;
    /// Throws Error when the model has no tokenizer or the text cannot be tokenized. With `target`, the text is the
    /// decoder side of an encoder-decoder, shown as the decoder inputs it becomes (Error for other models).
    virtual std::vector<TokenChip> tokenize(const std::string& text, bool target) = 0;
    /// One forward pass over `source` (and for encoder-decoders the teacher-forced `target`); throws Error on
    /// failure and Cancelled when progress() returns false, which it is asked per layer.
    virtual RunPtr runPair(const std::string& source, const std::string& target, const ProgressFn& progress) = 0;
    /// The default view of runPair(text, "") (figure recipes).
    SnapshotPtr run(const std::string& text, const ProgressFn& progress) {
        return runPair(text, std::string(), progress)->views.front().second;
    }
    /// Image-to-text models: one request of the Caption tab; the caption as it stands afterwards. Throws Error for
    /// other models, and Cancelled when progress() returns false (asked per encoder layer when an image is opened).
    virtual CaptionPtr caption(const CaptionRequest& request, const ProgressFn& progress);
    /// Later runs compute attention with `backend` (null: the CPU attention core directly).
    void setBackend(std::shared_ptr<Backend> backend) { m_backend = std::move(backend); }

protected:
    Backend* backend() const { return m_backend.get(); }

private:
    std::shared_ptr<Backend> m_backend;
};

/// Opens a model with `path` (anything probeModel accepts), its weights from `models` (shared with the other tabs);
/// throws Error naming the path on failure.
using ProviderFactory = std::function<std::unique_ptr<AttentionProvider>(
    const std::string& path, ModelRegistry& models, const ProgressFn&)>;

/// The real engine: probe, load weights and tokenizer, run forward passes. Encoder-decoders get the seq2seq
/// provider (seq2seq_provider.h), image-to-text models the caption provider (caption/caption_provider.h).
std::unique_ptr<AttentionProvider> openEngineProvider(
    const std::string& path, ModelRegistry& models, const ProgressFn& progress);

/// ForwardOptions::cancelRequested from `progress`: polled between the attention's row blocks, so a cancel stops a
/// long prefill within milliseconds instead of at the end of the layer.
std::function<bool()> cancelCheck(const ProgressFn& progress);

/// Maps per-layer callbacks of a forward pass onto steps [first, first + layers] of a `total`-step progress.
std::function<bool(int64_t, int64_t)> layerProgress(const ProgressFn& progress, int first, int total);

} // namespace attn::ui
