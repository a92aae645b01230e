// SPDX-License-Identifier: MIT
#include "pruning/pruning_result.h"

#include "analysis/corpus_lines.h"
#include "analysis/head_importance_classes.h"
#include "analysis/sentence_pairs.h"
#include "analysis/translation_importance.h"
#include "core/error.h"
#include "model/model_source.h"
#include "session/translator.h"
#include "tokenizer/tokenizer_loader.h"
#include "vision/image_conversion.h"

#include <filesystem>

namespace attn::ui {
namespace {

/// Importance, then the curve over it, with one progress range over both stages: importance (1 + heads passes per
/// input), then the curve (heads + 1).
template <typename Importance, typename Curve>
void runStages(
    PruningResult& result, int64_t heads, const RerunHooks& hooks, const Importance& importance, const Curve& curve)
{
    const int64_t stage = result.inputs * (1 + heads);
    const auto staged = [&hooks, stage](int64_t offset) {
        RerunHooks h = hooks;
        if (hooks.layerDone)
            h.layerDone = [&hooks, offset, stage](int64_t done, int64_t total) {
                return hooks.layerDone(offset + done * stage / total, 2 * stage);
            };
        return h;
    };
    double unmodified = 0.0;
    result.importance = importance(&unmodified, staged(0));
    result.unmodifiedLoss = -unmodified;
    result.curve = curve(result.importance, staged(stage));
}

/// The image files of `paths`, preprocessed for `model`, each with the class its file name names.
std::vector<LabelledImage> labelledImages(const VisionModel& model, const std::vector<std::string>& paths)
{
    std::vector<LabelledImage> images;
    for (const std::string& path : paths) {
        const int64_t label = labelInFileName(model, path);
        if (label < 0) {
            std::string classes;
            for (int64_t i = 0; i < model.numLabels(); ++i)
                classes += (i > 0 ? ", " : "") + model.label(i);
            throw Error(path,
                "its file name should name its true class, one of " + classes
                    + " (as the bundled samples do: sample_0_circle.png)");
        }
        images.push_back(
            { model.preprocess(imageBufferFromQImage(loadImageFile(QString::fromStdString(path)))), label });
    }
    return images;
}

PruningResultPtr pruneClassifier(
    EngineContext& context, const VisionModel& model, const PruningInputs& inputs, const RerunHooks& hooks)
{
    if (inputs.images.empty()) throw Error(model.config().source, "no image to prune over");
    auto result = std::make_shared<PruningResult>();
    result->target = PruningTarget::Classes;
    const std::vector<LabelledImage> images = labelledImages(model, inputs.images);
    result->inputs = static_cast<int64_t>(images.size());
    result->basis = images.size() == 1 ? "the image " + std::filesystem::path(inputs.images.front()).filename().string()
                                       : std::to_string(images.size()) + " labelled images";
    const ForwardOptions options = context.forwardOptions();
    runStages(
        *result, model.config().numLayers * model.config().numHeads, hooks,
        [&](double* unmodified, const RerunHooks& h) {
            return classHeadImportance(model, images, options, unmodified, h);
        },
        [&](const Tensor& importance, const RerunHooks& h) {
            return classPruning(model, images, importance, options, h);
        });
    return result;
}

PruningResultPtr pruneDecoder(EngineContext& context, const ModelSource& source, const DecoderModel& decoder,
    const PruningInputs& inputs, const RerunHooks& hooks)
{
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
    const ForwardOptions options = context.forwardOptions();
    runStages(
        *result, decoder.config().numLayers * decoder.config().numHeads, hooks,
        [&](double* unmodified, const RerunHooks& h) { return headImportance(decoder, lines, options, unmodified, h); },
        [&](const Tensor& importance, const RerunHooks& h) {
            return greedyPruning(decoder, lines, importance, options, h);
        });
    return result;
}

PruningResultPtr pruneTranslator(
    EngineContext& context, const std::string& modelPath, const PruningInputs& inputs, const RerunHooks& hooks)
{
    if (inputs.corpusPath.empty())
        throw Error(modelPath, "a translator is pruned over a file of sentence pairs with reference translations");
    const Translator translator(modelPath, context.models()); // the main views' copy
    if (!translator.transformer())
        throw Error(modelPath, "head pruning needs a transformer translator: an RNN's one attention has no heads");
    const EncoderDecoderModel& model = *translator.transformer();
    const std::vector<SentencePair> pairs = readSentencePairs(inputs.corpusPath, translator);
    auto result = std::make_shared<PruningResult>();
    result->target = PruningTarget::Translations;
    result->rows = model.headRows();
    result->inputs = static_cast<int64_t>(pairs.size());
    result->basis = std::to_string(pairs.size()) + " sentence pairs of " + inputs.corpusPath;
    const ForwardOptions options = context.forwardOptions();
    runStages(
        *result, result->rows.rows() * result->rows.heads, hooks,
        [&](double* unmodified, const RerunHooks& h) {
            return translationHeadImportance(model, pairs, options, unmodified, h);
        },
        [&](const Tensor& importance, const RerunHooks& h) {
            return translationPruning(model, pairs, importance, options, h);
        });
    return result;
}

} // namespace

PruningResultPtr pruneHeads(
    EngineContext& context, const std::string& modelPath, const PruningInputs& inputs, const RerunHooks& hooks)
{
    const ModelSource source = probeModel(modelPath);
    if (source.config.capabilities & kTranslate) return pruneTranslator(context, modelPath, inputs, hooks);
    if (source.config.kind != ModelKind::Decoder && source.config.kind != ModelKind::Vision)
        throw Error(modelPath,
            "pruning needs a decoder (a model that predicts the next token), an image classifier or a transformer "
            "translator, not "
                + modelKindName(source.config.kind));
    const std::shared_ptr<const Model> model = context.models().model(source); // the main views' copy
    if (const auto* vision = dynamic_cast<const VisionModel*>(model.get()))
        return pruneClassifier(context, *vision, inputs, hooks);
    const auto* decoder = dynamic_cast<const DecoderModel*>(model.get());
    if (!decoder) throw Error(modelPath, "pruning needs a decoder model or an image classifier");
    return pruneDecoder(context, source, *decoder, inputs, hooks);
}

} // namespace attn::ui
