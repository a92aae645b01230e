// SPDX-License-Identifier: MIT
// `prune`: head importance over a corpus and the greedy pruning curve. A decoder's corpus is text, one input a line;
// an image classifier's lists image files, one a line, each labelled by the class its file name names; a transformer
// translator's holds sentence pairs, source and reference translation separated by a tab (analysis/sentence_pairs.h).
#include "analysis/head_importance.h"
#include "analysis/head_importance_classes.h"
#include "analysis/sentence_pairs.h"
#include "analysis/translation_importance.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/decoder_run.h"
#include "cli/image_file.h"
#include "cli/model_args.h"
#include "cli/vision_input.h"
#include "core/error.h"
#include "core/npy.h"
#include "model/model_source.h"
#include "session/translator.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

namespace fs = std::filesystem;

namespace attn::cli {
namespace {

/// What the numbers of curve.json mean: next tokens of text, or true classes of images.
struct Meanings {
    const char* importance;
    const char* loss;
    const char* accuracy;
};

constexpr Meanings kNextTokens { "mean log-probability of the actual next tokens (pooled over every position of every "
                                 "line) unmodified minus with that head removed (head mask 0), nats",
    "mean next-token loss (nats) with the first k heads of order removed, k = 0 .. heads",
    "share of predicted positions whose most likely token is the actual next one, with the first k heads of order "
    "removed" };

constexpr Meanings kClasses { "mean log-probability of each image's true class (the class its file name names) "
                              "unmodified minus with that head removed (head mask 0), nats",
    "mean loss of the true classes (nats) with the first k heads of order removed, k = 0 .. heads",
    "classification accuracy: share of images whose most likely class is the true one, with the first k heads of order "
    "removed" };

constexpr Meanings kTranslations { "mean teacher-forced log-probability of the reference translations' tokens (EOS "
                                   "included, pooled over every pair) unmodified minus with that head removed (head "
                                   "mask 0), nats; rows as mask_rows names them",
    "mean teacher-forced loss of the reference tokens (nats) with the first k heads of order removed, k = 0 .. heads",
    "exact match: share of pairs whose greedy translation is the reference exactly, with the first k heads of order "
    "removed" };

/// `report` with the names of an encoder-decoder's mask rows: what the layer index of importance.npy and order means.
void nameRows(nlohmann::json& report, const Seq2SeqHeadRows& rows)
{
    nlohmann::json names = nlohmann::json::array();
    for (int64_t r = 0; r < rows.rows(); ++r)
        names.push_back(rows.rowName(r));
    report["mask_rows"] = names;
    report["mask_rows_meaning"] = "importance.npy's rows and order's layer index: the encoder's self-attention layers, "
                                  "then the decoder's self-attention layers, then its cross-attention layers";
}

void writeReport(const fs::path& out, const Tensor& importance, const PruningCurve& curve, size_t inputs,
    double reference, const Meanings& meanings, const Seq2SeqHeadRows* rows = nullptr)
{
    fs::create_directories(out);
    writeNpy((out / "importance.npy").string(), importance);
    nlohmann::json order = nlohmann::json::array();
    for (const HeadRef& h : curve.order)
        order.push_back({ h.layer, h.head });
    nlohmann::json report = { { "inputs", inputs }, { "unmodified_loss", -reference },
        { "importance_meaning", meanings.importance }, { "order", order }, { "removed_share", curve.removedShare },
        { "loss", curve.loss }, { "accuracy", curve.accuracy }, { "loss_meaning", meanings.loss },
        { "accuracy_meaning", meanings.accuracy }, { "copy_positions", curve.copyPositions },
        { "copy_accuracy", curve.copyAccuracy },
        { "copy_accuracy_meaning",
            "the induction-copy task: accuracy over the copy_positions alone, the predicted positions whose two tokens "
            "ending there occurred earlier followed by the same next token (in a repeated span, its second copy); "
            "empty when there are none" } };
    if (rows) nameRows(report, *rows);
    std::ofstream((out / "curve.json").string()) << report.dump(1) << "\n";
    std::cout << "importance of " << importance.numel() << " heads over " << inputs << " inputs; unmodified loss "
              << -reference << ", all removed " << curve.loss.back() << "; wrote " << out.string() << "\n";
}

/// The image files `corpus` lists (one a line, relative to its folder), decoded and preprocessed for `model`.
std::vector<LabelledImage> readImageCorpus(const VisionModel& model, const std::string& corpus)
{
    std::ifstream in(corpus);
    if (!in) throw Error(corpus, "cannot be read");
    std::vector<LabelledImage> images;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        const fs::path file = fs::path(corpus).parent_path() / line; // an absolute line stays as it is
        const int64_t label = labelInFileName(model, file.string());
        if (label < 0)
            throw Error(file.string(),
                "its file name names none of the model's classes, or more than one (" + corpus
                    + " lists images whose names give their true class, as sample_0_circle.png does)");
        images.push_back({ model.preprocess(readImageFile(file.string())), label });
    }
    if (images.empty()) throw Error(corpus, "lists no image");
    return images;
}

} // namespace

int runPrune(const std::vector<std::string>& words)
{
    const Args args(words, {});
    args.allowOnly({ "corpus", "backend", "tokenizer", "out" });
    const fs::path out = args.require("out");
    const std::string corpus = args.require("corpus");
    if (probeModel(args.positional(0, "MODEL")).config.kind == ModelKind::Vision) {
        const auto model = loadVisionModel(args.positional(0, "MODEL"));
        const std::vector<LabelledImage> images = readImageCorpus(*model, corpus);
        double reference = 0.0;
        const Tensor importance = classHeadImportance(*model, images, {}, &reference);
        writeReport(out, importance, classPruning(*model, images, importance, {}), images.size(), reference, kClasses);
        return 0;
    }
    if (Translator::accepts(args.positional(0, "MODEL"))) {
        const Translator translator(args.positional(0, "MODEL"), args.get("tokenizer", ""));
        if (!translator.transformer())
            throw Error(args.positional(0, "MODEL"),
                "head pruning needs a transformer translator: an RNN's one attention has no heads to remove");
        const EncoderDecoderModel& model = *translator.transformer();
        const std::vector<SentencePair> pairs = readSentencePairs(corpus, translator);
        ForwardOptions options;
        options.backend = modelBackend(args);
        double reference = 0.0;
        const Tensor importance = translationHeadImportance(model, pairs, options, &reference);
        const Seq2SeqHeadRows rows = model.headRows();
        writeReport(out, importance, translationPruning(model, pairs, importance, options), pairs.size(), reference,
            kTranslations, &rows);
        return 0;
    }
    const DecoderRun run = openDecoder(args, "prune", true);
    const std::vector<std::vector<int64_t>> inputs = readCorpus(run, corpus);
    double reference = 0.0;
    const Tensor importance = headImportance(*run.model, inputs, run.options, &reference);
    const PruningCurve curve = greedyPruning(*run.model, inputs, importance, run.options);
    writeReport(out, importance, curve, inputs.size(), reference, kNextTokens);
    return 0;
}

} // namespace attn::cli
