// SPDX-License-Identifier: MIT
// `mechanisms`: one head's q, k, v (a model's, after RoPE, or synthetic unit-variance ones) run through an attention
// variant; writes the inputs, the exact and the variant's attention and outputs, every parameter the variant drew or
// fitted, and metrics.json.
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/model_args.h"
#include "cli/vision_input.h"
#include "core/error.h"
#include "core/npy.h"
#include "mechanisms/learned_positions.h"
#include "mechanisms/mechanism_report.h"
#include "mechanisms/rnn_head_inputs.h"
#include "mechanisms/seq2seq_head_inputs.h"
#include "mechanisms/vision_head_inputs.h"
#include "model/model_loader.h"
#include "model/family_registry.h"
#include "model/rnn_seq2seq.h"
#include "model/vision_encoder_decoder.h"
#include "session/session.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace fs = std::filesystem;

namespace attn::cli {

namespace {

Tensor toTensor(const Mat& m, std::vector<int64_t> shape = {})
{
    if (shape.empty()) shape = { m.rows(), m.cols() };
    Tensor t(std::move(shape));
    Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(t.data(), m.rows(), m.cols())
        = m.cast<float>();
    return t;
}

nlohmann::json number(double value)
{
    return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

/// An RNN seq2seq model's cross-attention: the source from --prompt (its word vocabulary) or --tokens, the target
/// greedy, one layer and one head.
HeadInputs rnnHead(const Args& args, const std::string& path, int64_t layer, int64_t head, nlohmann::json& about)
{
    if (layer != 0 || head != 0) throw Error(path, "an RNN seq2seq model has one attention: give --layer 0 --head 0");
    const auto model = loadRnnSeq2Seq(path);
    const std::vector<int64_t> source
        = args.has("prompt") ? model->sourceIds(args.require("prompt")) : readTokenInput(args, nullptr).ids;
    RnnHead rnn = rnnHeadInputs(*model, source);
    about["model"] = model->description();
    about["tokens"] = source;
    about["generated"] = rnn.generated;
    about["translation"] = model->targetText(rnn.generated);
    return std::move(rnn.inputs);
}

HeadInputs visionHead(const Args& args, const std::string& path, int64_t layer, int64_t head, nlohmann::json& about)
{
    const auto model = loadVisionModel(path);
    const VisionHeads vision = visionHeads(*model, pixelInput(args, *model)); // the GUI tab's reading too
    about["model"] = vision.origin;
    std::vector<HeadInputs> heads = vision.layer(layer);
    if (head < 0 || head >= static_cast<int64_t>(heads.size()))
        throw Error(path,
            "head " + std::to_string(head) + " is outside the model's " + std::to_string(heads.size()) + " heads");
    return std::move(heads[static_cast<size_t>(head)]);
}

/// The model's learned position parameters, written beside the head's arrays when it has them.
struct ModelPositions {
    Mat similarity; ///< learned_positions.npy: cos similarity of the learned position rows 0 .. T - 1
    Mat relativeBias; ///< relative_bias.npy: T5's learned bias [buckets, heads] of the head's stack
};

void readLearnedTable(const ModelSource& source, int64_t tokens, AttentionBlock block, ModelPositions& positions)
{
    const Mat table = learnedPositionTable(source, tokens, block);
    if (table.size()) positions.similarity = cosineSimilarity(table);
}

/// A transformer encoder-decoder's (or image captioner's) head of --block encoder|decoder|cross (default encoder):
/// the source from --prompt / --tokens, --features (Whisper) or --image / --pixel-values (captioners), the decoder
/// teacher-forced on --decoder-tokens (default: its start token), as `attention` runs them.
HeadInputs seq2seqHead(const Args& args, const ModelSource& source, int64_t layer, int64_t head, nlohmann::json& about,
    ModelPositions& positions)
{
    const auto model = std::dynamic_pointer_cast<const EncoderDecoderModel>(loadModel(source));
    if (!model) throw Error(source.config.source, "not an encoder-decoder model");
    const AttentionBlock block = parseAttentionBlock(args.get("block").value_or("encoder"));
    EncoderInput input;
    if (const auto captioner = std::dynamic_pointer_cast<const VisionEncoderDecoderModel>(model)) {
        input.pixels = pixelInput(args, captioner->imageEncoder());
    } else if (const auto features = args.get("features")) {
        input.features = readNpy(*features);
    } else {
        if (!args.has("prompt") && !args.has("tokens")) throw UsageError("give --prompt TEXT or --tokens IDS");
        std::string noTokenizer;
        const auto tokenizer = modelTokenizer(args, source, args.has("prompt"), &noTokenizer);
        input.tokens = readTokenInput(args, tokenizer.get()).ids;
        about["tokens"] = input.tokens;
    }
    Seq2SeqHeads heads = seq2seqHeads(*model, input, args.getIds("decoder-tokens"), block, layer);
    about["model"] = model->description();
    about["block"] = attentionBlockName(block);
    about["decoder_tokens"] = heads.target;
    if (head < 0 || head >= static_cast<int64_t>(heads.layer.size()))
        throw Error(source.config.source,
            "head " + std::to_string(head) + " is outside the model's " + std::to_string(heads.layer.size()) + " "
                + attentionBlockName(block) + " heads");
    HeadInputs in = std::move(heads.layer[static_cast<size_t>(head)]);
    readLearnedTable(source, in.tokens(), block, positions);
    positions.relativeBias = t5RelativeBiasTable(source, block);
    return in;
}

/// `positions`: the model's learned position parameters (empty when it has none).
HeadInputs modelHead(const Args& args, nlohmann::json& about, ModelPositions& positions)
{
    const std::string path = args.positional(0, "MODEL");
    if (!args.has("layer") || !args.has("head")) throw UsageError("give --layer L and --head H");
    const int64_t layer = args.getInt("layer", -1), head = args.getInt("head", -1);
    about["layer"] = layer;
    about["head"] = head;
    const ModelSource source = probeModel(path);
    if (!hasSelfAttention(source.config)) return rnnHead(args, path, layer, head, about);
    if (source.config.kind == ModelKind::Vision) {
        HeadInputs in = visionHead(args, path, layer, head, about);
        readLearnedTable(source, in.tokens(), AttentionBlock::Encoder, positions);
        return in;
    }
    const ModelKind kind = source.config.kind;
    if (kind == ModelKind::EncoderDecoder || kind == ModelKind::Speech || kind == ModelKind::ImageToText)
        return seq2seqHead(args, source, layer, head, about, positions);
    if (args.has("block") || args.has("decoder-tokens") || args.has("features"))
        throw UsageError("--block, --decoder-tokens and --features are for encoder-decoder models");
    if (source.config.kind != ModelKind::Decoder && source.config.kind != ModelKind::Encoder)
        throw Error(source.config.source,
            "mechanisms read one head's q, k, v of a decoder (GPT-2, Llama family, llama2.c), an encoder (BERT), an "
            "image model (ViT, DeiT; --image or --pixel-values), an encoder-decoder (--block) or an RNN seq2seq "
            "model; this model's kind is "
                + modelKindName(source.config.kind));
    if (!args.has("prompt") && !args.has("tokens")) throw UsageError("give --prompt TEXT or --tokens IDS");
    std::string noTokenizer;
    const auto tokenizer = modelTokenizer(args, source, args.has("prompt"), &noTokenizer);
    const TokenInput input = readTokenInput(args, tokenizer.get());
    Session session(loadModel(source));
    session.prefill(input.ids);
    about["model"] = session.model().description();
    about["tokens"] = input.ids;
    readLearnedTable(source, static_cast<int64_t>(input.ids.size()), AttentionBlock::Encoder, positions);
    return headInputsFromSession(session, layer, head);
}

HeadInputs syntheticHead(const Args& args, nlohmann::json& about)
{
    for (const char* option : { "tokens-count", "d-k", "seed" })
        if (!args.has(option)) throw UsageError(std::string("--synthetic needs --") + option);
    const int64_t seed = args.getInt("seed", 0);
    if (seed < 0) throw UsageError("--seed must be a non-negative integer");
    about["synthetic"]
        = { { "tokens", args.getInt("tokens-count", 0) }, { "d_k", args.getInt("d-k", 0) }, { "seed", seed } };
    return syntheticHeadInputs(args.getInt("tokens-count", 0), args.getInt("d-k", 0), static_cast<uint64_t>(seed));
}

} // namespace

int runMechanisms(const std::vector<std::string>& words)
{
    const Args args(words, { "synthetic" });
    args.allowOnly({ "synthetic", "tokens-count", "d-k", "seed", "prompt", "tokens", "tokenizer", "image",
        "pixel-values", "features", "block", "decoder-tokens", "layer", "head", "variant", "out" });
    const bool synthetic = args.has("synthetic");
    if (synthetic && !args.positionals().empty()) throw UsageError("--synthetic takes no MODEL");
    const MechanismSpec spec = parseMechanism(args.require("variant"));
    const fs::path out = args.require("out");
    nlohmann::json metrics;
    ModelPositions positions;
    const HeadInputs inputs
        = synthetic ? syntheticHead(args, metrics["input"]) : modelHead(args, metrics["input"], positions);
    const MechanismReport report = analyzeMechanism(inputs, spec);

    fs::create_directories(out);
    auto write = [&](const std::string& stem, const Mat& m, std::vector<int64_t> shape = {}) {
        writeNpy((out / (stem + ".npy")).string(), toTensor(m, std::move(shape)));
    };
    write("q", inputs.q);
    write("k", inputs.k);
    write("v", inputs.v);
    if (inputs.learned.params.size()) write("learned", inputs.learned.params); // the RNN's trained score parameters
    if (inputs.bias.size()) write("position_bias", inputs.bias); // T5: added to the scores
    write("exact", report.exact);
    write("exact_out", report.exactOut);
    write("probs", report.variant.probs);
    write("out", report.variant.out);
    if (report.variant.unmaskedReference) write("reference_out", report.referenceOut);
    // GPT-2 wpe, BERT / ViT position embeddings, BART embed_positions (offset 2)
    if (positions.similarity.size()) write("learned_positions", positions.similarity);
    if (positions.relativeBias.size()) write("relative_bias", positions.relativeBias); // T5 [buckets, heads]
    for (const NamedArray& a : report.variant.arrays)
        write(a.name, a.values, a.shape);

    const MechanismMetrics& m = report.metrics;
    metrics["variant"] = spec.text;
    metrics["input"]["origin"] = inputs.origin;
    metrics["input"]["causal"] = inputs.causal;
    metrics["input"]["cross"] = inputs.cross;
    metrics["input"]["sliding_window"] = inputs.slidingWindow;
    metrics["input"]["scale"] = inputs.scale;
    metrics["input"]["learned_score"] = learnedScoreName(inputs.learned.kind);
    metrics["kl_mean"] = number(m.klMean);
    metrics["mass_kept"] = number(m.massKept);
    metrics["out_rel_err"] = number(m.outRelErr);
    metrics["entropy_mean"] = number(m.entropyMean);
    metrics["exact_entropy_mean"] = number(m.exactEntropyMean);
    metrics["max_weight_mean"] = number(m.maxWeightMean);
    metrics["heads"] = inputs.numHeads;
    metrics["reference"] = report.variant.unmaskedReference ? "unmasked" : "exact";
    for (const auto& [name, value] : report.variant.numbers)
        metrics[name] = number(value);
    for (const auto& [name, text] : report.variant.notes)
        metrics["notes"][name] = text;
    metrics["definitions"] = {
        { "kl_mean", "mean over rows of KL(variant || reference), nats; null when probs' columns are not the keys" },
        { "mass_kept", "mean over rows of the reference attention mass on keys the variant gives weight to" },
        { "out_rel_err", "|out - reference_out|_F / |reference_out|_F" },
        { "entropy_mean", "mean row entropy of the variant's probs, nats" },
    };
    std::ofstream((out / "metrics.json").string()) << metrics.dump(1) << "\n";
    std::cout << spec.text << ": kl_mean " << metrics["kl_mean"] << ", mass_kept " << metrics["mass_kept"]
              << ", out_rel_err " << metrics["out_rel_err"] << ", entropy_mean " << metrics["entropy_mean"]
              << "; wrote " << out.string() << "\n";
    return 0;
}

} // namespace attn::cli
