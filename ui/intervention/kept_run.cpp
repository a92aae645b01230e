// SPDX-License-Identifier: MIT
#include "intervention/kept_run.h"

#include "core/error.h"
#include "model/model_source.h"
#include "session/decode_timeline.h"
#include "tokenizer/tokenizer_loader.h"

namespace attn::ui {

namespace {

// Both passes of a diff keep every head's probabilities (the difference heatmaps); past this they would not fit beside
// the main views' run on a laptop (a 12 x 12 model reaches it at about 2,600 tokens).
constexpr uint64_t kMaxAttentionBytes = uint64_t(2) << 30;

} // namespace

std::string KeptRun::tokenText(int64_t id) const
{
    return tokenizer ? tokenizer->tokenText(id) : "[" + std::to_string(id) + "]";
}

std::shared_ptr<KeptRun> keptRun(EngineContext& context, const std::string& key, const std::string& path,
    const std::vector<int64_t>& tokens, const RerunHooks& hooks)
{
    auto kept = context.session<KeptRun>(key);
    if (kept && kept->path == path && kept->tokens == tokens && kept->backend == context.backend().get()) return kept;
    context.dropSession(key); // the previous input's passes go before the next is computed
    const ModelSource source = probeModel(path);
    if (source.config.kind != ModelKind::Decoder)
        throw Error(path,
            "this needs a decoder (a model that predicts the next token), not " + modelKindName(source.config.kind));
    const ModelConfig& c = source.config;
    const auto n = static_cast<uint64_t>(tokens.size());
    if (n == 0) throw Error("the input has no tokens; type and run an input first");
    if (2 * n * n * sizeof(float) * static_cast<uint64_t>(c.numLayers * c.numHeads) > kMaxAttentionBytes)
        throw Error(std::to_string(n) + " tokens would keep more than 2 GiB of attention for the difference "
            + "heatmaps; shorten the input");
    kept = std::make_shared<KeptRun>();
    kept->path = path;
    kept->tokens = tokens;
    kept->backend = context.backend().get();
    kept->model = context.models().model(source); // the main views' copy
    kept->stopToken = decodeStopToken(source);
    try {
        kept->tokenizer = loadTokenizer(source);
    } catch (const Error&) {
        // ids only, as the Decode tab without a tokenizer
    }
    const auto* decoder = dynamic_cast<const DecoderModel*>(kept->model.get());
    if (!decoder) throw Error(path, "this needs a decoder model");
    ForwardOptions options = context.forwardOptions();
    options.layerDone = hooks.layerDone;
    options.cancelRequested = hooks.cancelRequested;
    kept->run = std::make_unique<ReusableRun>(*decoder, tokens, options);
    context.setSession(key, kept);
    return kept;
}

void addTokenTexts(const KeptRun& kept, const std::vector<int64_t>& ids, std::unordered_map<int64_t, std::string>& out)
{
    for (const int64_t id : ids)
        if (!out.contains(id)) out.emplace(id, kept.tokenText(id));
}

} // namespace attn::ui
