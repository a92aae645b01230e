// SPDX-License-Identifier: MIT
#pragma once
// Engine-thread state of the Intervene and Logit lens tabs: the unmodified pass of the main input, kept between
// requests (ablation diffs re-run from it, the lens reads its hidden states).
#include "intervention/layer_reuse.h"
#include "service/engine_context.h"
#include "tokenizer/tokenizer.h"

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace attn::ui {

struct KeptRun {
    std::string path;
    std::vector<int64_t> tokens;
    const Backend* backend = nullptr;
    std::shared_ptr<const Model> model; ///< keeps the registry's copy alive for `run`
    std::shared_ptr<const Tokenizer> tokenizer; ///< null: ids are shown as [id]
    std::unique_ptr<ReusableRun> run; ///< with attention and hidden states
    int64_t stopToken = -1; ///< what ends a continuation (decodeStopToken)
    /// The unmodified greedy continuation, made by the first diff that shows one (engine thread only).
    mutable std::optional<std::vector<int64_t>> cleanContinuation;

    /// The text a view shows for token `id`.
    std::string tokenText(int64_t id) const;
};

/// The kept pass of `tokens` of the model at `path` under `key`, made (with `hooks` reporting its layers) when the
/// one kept there is of another input, model or backend. Throws Error for models that do not predict next tokens.
std::shared_ptr<KeptRun> keptRun(EngineContext& context, const std::string& key, const std::string& path,
    const std::vector<int64_t>& tokens, const RerunHooks& hooks);

/// id -> text of every id of `ids` (what results carry to the GUI thread).
void addTokenTexts(const KeptRun& kept, const std::vector<int64_t>& ids, std::unordered_map<int64_t, std::string>& out);

} // namespace attn::ui
