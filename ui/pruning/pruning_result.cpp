// SPDX-License-Identifier: MIT
#include "pruning/pruning_result.h"

#include "analysis/corpus_lines.h"
#include "core/error.h"
#include "model/model_source.h"
#include "tokenizer/tokenizer_loader.h"

namespace attn::ui {

PruningResultPtr pruneHeads(
    EngineContext& context, const std::string& modelPath, const PruningInputs& inputs, const RerunHooks& hooks)
{
    const ModelSource source = probeModel(modelPath);
    if (source.config.kind != ModelKind::Decoder)
        throw Error(modelPath,
            "pruning needs a decoder (a model that predicts the next token), not " + modelKindName(source.config.kind));
    const std::shared_ptr<const Model> model = context.models().model(source); // the main views' copy
    const auto* decoder = dynamic_cast<const DecoderModel*>(model.get());
    if (!decoder) throw Error(modelPath, "pruning needs a decoder model");
    auto result = std::make_shared<PruningResult>();
    std::vector<std::vector<int64_t>> lines;
    if (inputs.corpusPath.empty()) {
        lines.push_back(inputs.tokens);
        result->basis = "the main input (" + std::to_string(inputs.tokens.size()) + " tokens)";
    } else {
        lines = readCorpusLines(inputs.corpusPath, *loadTokenizer(source), source.config.maxPositions);
        if (lines.empty()) throw Error(inputs.corpusPath, "the corpus has no non-empty line");
        result->basis = std::to_string(lines.size()) + " lines of " + inputs.corpusPath;
    }
    result->inputs = static_cast<int64_t>(lines.size());
    // One progress range over both stages: importance (1 + heads passes per input), then the curve (heads + 1).
    const ModelConfig& c = decoder->config();
    const int64_t stage = result->inputs * (1 + c.numLayers * c.numHeads);
    const auto staged = [&hooks, stage](int64_t offset) {
        RerunHooks h = hooks;
        if (hooks.layerDone)
            h.layerDone = [&hooks, offset, stage](int64_t done, int64_t total) {
                return hooks.layerDone(offset + done * stage / total, 2 * stage);
            };
        return h;
    };
    const ForwardOptions options = context.forwardOptions();
    double unmodified = 0.0;
    result->importance = headImportance(*decoder, lines, options, &unmodified, staged(0));
    result->unmodifiedLoss = -unmodified;
    result->curve = greedyPruning(*decoder, lines, result->importance, options, staged(stage));
    return result;
}

} // namespace attn::ui
