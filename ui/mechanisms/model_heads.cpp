// SPDX-License-Identifier: MIT
#include "mechanisms/model_heads.h"

#include "caption/caption_state.h"
#include "core/error.h"
#include "core/npy.h"
#include "mechanisms/attention_math.h"
#include "mechanisms/rnn_head_inputs.h"
#include "mechanisms/vision_head_inputs.h"
#include "model/model_source.h"
#include "model/rnn_seq2seq.h"
#include "model/seq2seq_model.h"
#include "model/vision_encoder_decoder.h"
#include "model/vision_model.h"
#include "service/model_registry.h"
#include "session/session.h"
#include "tokenizer/tokenizer_loader.h"

#include <optional>

namespace attn::ui {

namespace {

/// The copy the other tabs hold: the job never loads one (a model closed meanwhile stays closed).
template <class T>
std::shared_ptr<const T> openModel(const MechanismsRequest& request, const ModelRegistry& models, const char* kind)
{
    auto model = std::dynamic_pointer_cast<const T>(models.held(probeModel(request.modelPath)));
    if (!model) throw Error(request.modelPath, std::string("is not open as ") + kind + " any more: open it again");
    return model;
}

/// One head's probabilities [T, S] as a one-head layer [1, T, S].
Tensor oneHeadLayer(const Mat& probs)
{
    Tensor t({ 1, probs.rows(), probs.cols() });
    for (int64_t i = 0; i < probs.rows(); ++i)
        for (int64_t j = 0; j < probs.cols(); ++j)
            t.at({ 0, i, j }) = static_cast<float>(probs(i, j));
    return t;
}

/// The open model's pass stops when the request is cancelled.
ForwardOptions stoppable(const std::function<bool()>& keepGoing)
{
    ForwardOptions options;
    options.cancelRequested = [keepGoing] { return !keepGoing(); };
    return options;
}

ModelHeads sessionHeads(
    const MechanismsRequest& request, const ModelRegistry& models, const std::function<bool()>& keepGoing)
{
    if (request.sourceIds.empty()) throw Error("open a model and run an input first (or pick synthetic input)");
    const auto model = openModel<Model>(request, models, "a model");
    const ModelConfig& c = model->config();
    ForwardOptions options = stoppable(keepGoing);
    // A decoder's heads are read from its KV cache and its entropy from the probabilities the pass computes anyway:
    // the pass stores no attention and no logits but the last row (at 4k tokens of a GPT-2-small-shaped model those
    // were 9.7 GB of probabilities and 0.8 GB of logits, then every head derived a second time for the entropy).
    std::optional<HeadEntropyCollector> entropy;
    if (c.kind == ModelKind::Decoder) {
        entropy.emplace(
            c.numLayers, c.numHeads, static_cast<int64_t>(request.sourceIds.size()), Session::decoderMask(c));
        options.wantAttention = false;
        options.lastLogitsOnly = true;
        options.observeAttention = [&entropy](int64_t layer, int64_t head, int64_t query, int64_t rows,
                                       const float* p) { entropy->add(layer, head, query, rows, p); };
    }
    Session session(model, options);
    session.prefill(request.sourceIds);
    ModelHeads h;
    h.layer = layerHeadInputs(session, request.layer);
    h.tokenIds = session.tokens();
    h.entropy = entropy ? entropy->map(session) : headEntropyMap(session);
    h.config = c;
    return h;
}

/// Whisper's features or the captioner's image from request.inputFile, as attnscope-cli mechanisms reads them.
EncoderInput fileInput(const MechanismsRequest& request, const EncoderDecoderModel& model)
{
    if (request.inputFile.empty())
        throw Error(request.modelPath,
            model.config().kind == ModelKind::Speech ? "choose a log-mel features .npy (Input file…)"
                                                     : "choose an image (Input file…)");
    EncoderInput input;
    if (const auto* captioner = dynamic_cast<const VisionEncoderDecoderModel*>(&model))
        input.pixels = loadCaptionImage(captioner->imageEncoder(), QString::fromStdString(request.inputFile)).pixels;
    else
        input.features = readNpy(request.inputFile);
    return input;
}

/// Decoder tokens generated greedily (argmax, stopping at EOS) after the start token when a file model has no
/// decoder text: the caption or transcript the model itself gives.
constexpr int64_t kGeneratedDecoderTokens = 24;

/// Whisper's and the captioner's decoder inputs: the start token, then request.decoderText tokenized with the model's
/// tokenizer, or what the model generates from the input when there is none.
std::vector<int64_t> fileDecoderTokens(const MechanismsRequest& request, const ModelSource& source,
    const EncoderDecoderModel& model, const EncoderInput& input, const Tokenizer* tokenizer)
{
    std::vector<int64_t> target { model.decoderStartToken() };
    if (request.decoderText.empty()) {
        const auto encoding = model.encode(input, {});
        for (const int64_t id : greedyDecode(model, *encoding, kGeneratedDecoderTokens, true))
            target.push_back(id);
        return target;
    }
    if (!tokenizer) throw Error(source.folder, "has no tokenizer for the decoder text: leave it empty");
    for (const Token& t : tokenizer->encode(request.decoderText, false))
        target.push_back(t.id);
    if (target.size() == 1) throw Error(source.folder, "the decoder text has no tokens");
    return target;
}

ModelHeads seq2seqHeadsOf(const MechanismsRequest& request, ModelRegistry& models)
{
    const ModelSource source = probeModel(request.modelPath);
    const ModelKind kind = source.config.kind;
    const bool fromFile = kind == ModelKind::Speech || kind == ModelKind::ImageToText;
    // No tab holds Whisper in the registry: it is loaded here (and kept by the result shown); the captioner is the
    // Caption tab's copy when that tab opened it, and a text encoder-decoder is the copy the other tabs opened.
    const auto model = fromFile ? std::dynamic_pointer_cast<const EncoderDecoderModel>(models.model(source))
                                : openModel<EncoderDecoderModel>(request, models, "an encoder-decoder model");
    if (!model) throw Error(request.modelPath, "is not an encoder-decoder model");
    EncoderInput input;
    std::vector<int64_t> target = request.targetIds;
    std::unique_ptr<Tokenizer> tokenizer;
    if (fromFile) {
        input = fileInput(request, *model);
        try {
            tokenizer = loadTokenizer(source);
        } catch (const Error&) {
            // ids only (the tiny Whisper has none): the rows are labelled by id and typed text is refused
        }
        if (target.empty()) target = fileDecoderTokens(request, source, *model, input, tokenizer.get());
    } else {
        if (request.sourceIds.empty()) throw Error(request.modelPath, "run a source sentence first");
        input.tokens = request.sourceIds;
    }
    Seq2SeqHeads s = seq2seqHeads(*model, input, target, request.block, request.layer);
    ModelHeads h;
    h.tokenIds = request.block == AttentionBlock::Encoder ? request.sourceIds : s.target;
    if (tokenizer && request.block != AttentionBlock::Encoder) {
        // The decoder rows are the tokens' text; a cross head's keys are the source's frames or patches, by index.
        for (const int64_t id : s.target)
            h.queryLabels.push_back(tokenizer->tokenText(id));
        h.keyLabels = h.queryLabels;
        if (request.block == AttentionBlock::Cross) {
            h.keyLabels.clear();
            for (int64_t j = 0; j < s.layer.front().keyCount(); ++j)
                h.keyLabels.push_back(std::to_string(j));
        }
    }
    MaskSpec mask;
    mask.causal = request.block == AttentionBlock::Decoder;
    h.entropy = headEntropyMap(s.attention, mask);
    h.config = model->config();
    h.layer = std::move(s.layer);
    if (fromFile) h.model = model;
    return h;
}

ModelHeads rnnHeads(const MechanismsRequest& request, const ModelRegistry& models)
{
    const auto model = openModel<RnnSeq2SeqModel>(request, models, "an RNN seq2seq model");
    if (request.layer != 0) throw Error(request.modelPath, "an RNN seq2seq model has one attention: layer 0, head 0");
    if (request.sourceIds.empty()) throw Error(request.modelPath, "run a source sentence first");
    RnnHead rnn = rnnHeadInputs(*model, request.sourceIds);
    ModelHeads h;
    // Row t is the query that chose generated word t; keys past the source are the tutorial's padded positions.
    for (const int64_t id : rnn.generated)
        h.queryLabels.push_back(model->targetVocab().at(static_cast<size_t>(id)));
    for (int64_t j = 0; j < rnn.inputs.keyCount(); ++j)
        h.keyLabels.push_back(j < static_cast<int64_t>(request.sourceIds.size())
                ? model->sourceVocab().at(static_cast<size_t>(request.sourceIds[static_cast<size_t>(j)]))
                : "pad " + std::to_string(j));
    h.tokenIds = request.sourceIds;
    h.entropy = headEntropyMap({ oneHeadLayer(exactProbabilities(rnn.inputs)) }, MaskSpec {});
    h.config = model->config();
    h.layer.push_back(std::move(rnn.inputs));
    return h;
}

ModelHeads imageHeads(const MechanismsRequest& request, const ModelRegistry& models)
{
    const auto model = openModel<VisionModel>(request, models, "an image model");
    if (!request.pixels) throw Error(request.modelPath, "classify an image in the Vision tab first");
    const VisionHeads v = visionHeads(*model, *request.pixels);
    ModelHeads h;
    h.layer = v.layer(request.layer);
    // "(r,c)" for "patch r,c": three maps side by side leave a label a few characters.
    for (const std::string& name : v.tokenNames)
        h.queryLabels.push_back(name.rfind("patch ", 0) == 0 ? "(" + name.substr(6) + ")" : name);
    h.keyLabels = h.queryLabels;
    h.entropy = headEntropyMap(v.pass.attention, MaskSpec {});
    h.config = v.config;
    return h;
}

} // namespace

bool sameHeads(const MechanismsRequest& a, const MechanismsRequest& b)
{
    return !a.synthetic && !b.synthetic && a.source == b.source && a.modelPath == b.modelPath && a.layer == b.layer
        && a.sourceIds == b.sourceIds && a.targetIds == b.targetIds && a.block == b.block && a.pixels == b.pixels
        && a.inputFile == b.inputFile && a.decoderText == b.decoderText;
}

ModelHeads readModelHeads(
    const MechanismsRequest& request, ModelRegistry& models, const std::function<bool()>& keepGoing)
{
    switch (request.source) {
    case HeadSource::Session:
        return sessionHeads(request, models, keepGoing);
    case HeadSource::Seq2Seq:
        return seq2seqHeadsOf(request, models);
    case HeadSource::RnnSeq2Seq:
        return rnnHeads(request, models);
    case HeadSource::Image:
        return imageHeads(request, models);
    }
    throw Error("unknown head source");
}

} // namespace attn::ui
