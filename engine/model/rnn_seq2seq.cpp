// SPDX-License-Identifier: MIT
#include "model/rnn_seq2seq.h"

#include "attention/attention.h"
#include "attention/seq2seq_scores.h"
#include "core/checked.h"
#include "core/error.h"
#include "core/input_file.h"
#include "io/json_input.h"
#include "model/layers.h"
#include "model/weight_reader.h"
#include "tokenizer/unicode.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace attn {
namespace {

Tensor row(const std::vector<float>& v)
{
    return Tensor({ 1, static_cast<int64_t>(v.size()) }, v);
}

std::vector<float> concat(const std::vector<float>& a, const std::vector<float>& b)
{
    std::vector<float> out(a);
    out.insert(out.end(), b.begin(), b.end());
    return out;
}

std::vector<float> rowOf(const Tensor& table, int64_t id, const char* what)
{
    if (id < 0 || id >= table.dim(0))
        throw Error(std::string(what) + " id " + std::to_string(id) + " is out of range [0, "
            + std::to_string(table.dim(0)) + ")");
    const float* p = table.data() + id * table.dim(1);
    return std::vector<float>(p, p + table.dim(1));
}

std::vector<float> affine(const std::vector<float>& x, const Tensor& w, const Tensor& b)
{
    return linear(row(x), w, b.empty() ? nullptr : &b).storage();
}

/// Steps a stack of layers (PyTorch num_layers semantics: each layer's output is the next layer's input) and returns
/// the top layer's new state. h and c hold every layer's state, layer 0 first.
std::vector<float> stepLayers(
    const std::vector<RnnWeights>& layers, std::vector<float> x, std::vector<float>& h, std::vector<float>& c)
{
    const size_t H = static_cast<size_t>(layers.front().hiddenSize());
    const bool lstm = layers.front().cell == RnnCell::Lstm;
    for (size_t l = 0; l < layers.size(); ++l) {
        const auto from = static_cast<std::ptrdiff_t>(l * H), to = static_cast<std::ptrdiff_t>((l + 1) * H);
        std::vector<float> hl(h.begin() + from, h.begin() + to), cl;
        if (lstm) cl.assign(c.begin() + from, c.begin() + to);
        rnnStep(layers[l], x, hl, cl);
        std::copy(hl.begin(), hl.end(), h.begin() + from);
        if (lstm) std::copy(cl.begin(), cl.end(), c.begin() + from);
        x = std::move(hl);
    }
    return x;
}

/// One direction of one encoder layer over the whole input; returns the final h and c.
std::pair<std::vector<float>, std::vector<float>> runDirection(const RnnWeights& w,
    const std::vector<std::vector<float>>& inputs, bool backward, std::vector<std::vector<float>>& outputs)
{
    std::vector<float> h(static_cast<size_t>(w.hiddenSize()), 0.0f), c(h);
    const int64_t S = static_cast<int64_t>(inputs.size());
    for (int64_t i = 0; i < S; ++i) {
        const size_t t = static_cast<size_t>(backward ? S - 1 - i : i);
        rnnStep(w, inputs[t], h, c);
        outputs[t].insert(outputs[t].end(), h.begin(), h.end());
    }
    return { h, c };
}

nlohmann::json readJson(const fs::path& path)
{
    return readUntrustedJson(path.string(), file_caps::kTokenizer, "JSON");
}

std::vector<std::string> stringList(const nlohmann::json& j, const char* key, const fs::path& path)
{
    if (!j.contains(key) || !j[key].is_array() || j[key].empty())
        throw Error(path.string(), std::string("\"") + key + "\" must be a non-empty list of words");
    std::vector<std::string> out;
    for (const auto& w : j[key]) {
        if (!w.is_string()) throw Error(path.string(), std::string("\"") + key + "\" holds a non-string entry");
        out.push_back(w.get<std::string>());
    }
    return out;
}

ModelConfig rnnConfig(
    const std::string& source, const std::string& type, int64_t hidden, int64_t targetVocab, int64_t sos, int64_t eos)
{
    ModelConfig c;
    c.source = source;
    c.modelType = type;
    c.architecture = type;
    c.kind = ModelKind::EncoderDecoder;
    c.numLayers = c.numDecoderLayers = 1;
    c.numHeads = c.numDecoderHeads = c.numKvHeads = 1;
    c.hiddenSize = c.headDim = hidden;
    c.vocabSize = targetVocab;
    c.decoderStartTokenId = sos;
    c.eosTokenId = eos;
    c.capabilities = kTranslate | kAlign;
    return c;
}

/// The PyTorch tutorial checkpoint: encoder.safetensors, decoder.safetensors, vocab_and_pairs.json (SOS 0, EOS 1).
std::shared_ptr<RnnSeq2SeqModel> loadTutorial(const fs::path& dir)
{
    const fs::path vocabPath = dir / "vocab_and_pairs.json";
    const nlohmann::json vocab = readJson(vocabPath);
    std::vector<std::string> src = stringList(vocab, "input_index2word", vocabPath);
    std::vector<std::string> tgt = stringList(vocab, "output_index2word", vocabPath);
    WeightReader enc((dir / "encoder.safetensors").string()), dec((dir / "decoder.safetensors").string());
    if (!dec.has("attn.weight")) throw Error(dec.path(), "no attn.weight: not the tutorial's AttnDecoderRNN");
    RnnSeq2SeqWeights w;
    w.score = RnnScore::Location;
    const int64_t Vs = static_cast<int64_t>(src.size()), Vt = static_cast<int64_t>(tgt.size());
    // The tutorial's fixed architecture: hidden 256 and MAX_LENGTH 10 attention positions (attn: Linear 512 -> 10).
    const int64_t H = 256;
    w.fixedKeys = 10;
    w.sourceEmbedding = enc.take("embedding.weight", { Vs, H });
    w.encoder = { readRnn(enc, "gru.", "", RnnCell::Gru, H, H) };
    w.targetEmbedding = dec.take("embedding.weight", { Vt, H });
    w.scoreW = dec.take("attn.weight", { w.fixedKeys, 2 * H });
    w.scoreB = dec.take("attn.bias", { w.fixedKeys });
    w.combineW = dec.take("attn_combine.weight", { H, 2 * H });
    w.combineB = dec.take("attn_combine.bias", { H });
    w.decoder = { readRnn(dec, "gru.", "", RnnCell::Gru, H, H) };
    w.outW = dec.take("out.weight", { Vt, H });
    w.outB = dec.take("out.bias", { Vt });
    enc.expectAllUsed();
    dec.expectAllUsed();
    const int64_t K = w.fixedKeys;
    return std::make_shared<RnnSeq2SeqModel>(rnnConfig(vocabPath.string(), "seq2seq_attn_tutorial", H, Vt, 0, 1),
        std::move(w), std::move(src), std::move(tgt), K);
}

/// config.json (model_type "rnn_seq2seq") + model.safetensors, as docs/rnn-seq2seq-format.md describes.
std::shared_ptr<RnnSeq2SeqModel> loadGeneral(const fs::path& dir)
{
    const fs::path cfgPath = dir / "config.json";
    const std::string cfgName = cfgPath.string();
    const nlohmann::json j = readJson(cfgPath);
    auto integer = [&](const char* key, int64_t fallback) -> int64_t {
        if (!j.contains(key)) return fallback;
        if (!j[key].is_number_integer() || j[key].get<int64_t>() < 0)
            throw Error(cfgName, std::string("\"") + key + "\" must be a non-negative integer");
        return j[key].get<int64_t>();
    };
    auto flag = [&](const char* key) {
        if (!j.contains(key)) return false;
        if (!j[key].is_boolean())
            throw Error(cfgName, std::string("\"") + key + "\" must be true or false, got " + describeJson(j[key]));
        return j[key].get<bool>();
    };
    auto text = [&](const char* key, const std::string& fallback) {
        return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
    };
    std::vector<std::string> src = stringList(j, "source_vocab", cfgPath);
    std::vector<std::string> tgt = stringList(j, "target_vocab", cfgPath);
    const std::string cellName = text("cell", "gru");
    if (cellName != "gru" && cellName != "lstm") throw Error(cfgName, "cell \"" + cellName + "\" is not gru or lstm");
    const RnnCell cell = cellName == "gru" ? RnnCell::Gru : RnnCell::Lstm;
    const std::string scoreName = text("attention", "bahdanau");
    RnnSeq2SeqWeights w;
    if (scoreName == "bahdanau")
        w.score = RnnScore::Bahdanau;
    else if (scoreName == "dot")
        w.score = RnnScore::LuongDot;
    else if (scoreName == "general")
        w.score = RnnScore::LuongGeneral;
    else if (scoreName == "concat")
        w.score = RnnScore::LuongConcat;
    else
        throw Error(cfgName, "attention \"" + scoreName + "\" is not bahdanau, dot, general or concat");
    const bool bidirectional = flag("bidirectional");
    w.inputFeeding = flag("input_feeding");
    if (w.inputFeeding && w.score == RnnScore::Bahdanau)
        throw Error(cfgName, "input_feeding applies to Luong attention only");
    const int64_t E = integer("embedding_size", 0), H = integer("hidden_size", 0), layers = integer("num_layers", 1);
    if (layers < 1) throw Error(cfgName, "\"num_layers\" must be at least 1");
    const int64_t De = mulOrThrow(bidirectional ? 2 : 1, H, cfgName, "the encoder output size"),
                  Hd = integer("decoder_hidden_size", De), A = integer("attention_size", Hd);
    if (E == 0 || H == 0) throw Error(cfgName, "embedding_size and hidden_size are required");
    const int64_t Vs = static_cast<int64_t>(src.size()), Vt = static_cast<int64_t>(tgt.size());

    WeightReader r((dir / "model.safetensors").string());
    w.sourceEmbedding = r.take("encoder.embedding.weight", { Vs, E });
    for (int64_t l = 0; l < layers; ++l) {
        w.encoder.push_back(readRnn(r, "encoder.rnn.", "", cell, l == 0 ? E : De, H, l));
        if (bidirectional)
            w.encoderReverse.push_back(readRnn(r, "encoder.rnn.", "_reverse", cell, l == 0 ? E : De, H, l));
    }
    if (r.has("bridge.weight")) {
        w.bridgeW = r.take("bridge.weight", { Hd, De });
        w.bridgeB = r.take("bridge.bias", { Hd });
    } else if (Hd != De) {
        throw Error(cfgName, "decoder_hidden_size differs from the encoder output size but there is no bridge.weight");
    }
    w.targetEmbedding = r.take("decoder.embedding.weight", { Vt, E });
    const bool luong = w.score != RnnScore::Bahdanau;
    const int64_t decoderInput = E + (luong ? (w.inputFeeding ? Hd : 0) : De);
    for (int64_t l = 0; l < layers; ++l)
        w.decoder.push_back(readRnn(r, "decoder.rnn.", "", cell, l == 0 ? decoderInput : Hd, Hd, l));
    const std::string a = "decoder.attention.";
    switch (w.score) {
    case RnnScore::Bahdanau:
        w.queryW = r.take(a + "query.weight", { A, Hd });
        w.keyW = r.take(a + "key.weight", { A, De });
        w.v = r.take(a + "v.weight", { 1, A }).reshaped({ A });
        break;
    case RnnScore::LuongDot:
        if (Hd != De) throw Error(cfgName, "dot attention needs decoder_hidden_size == encoder output size");
        break;
    case RnnScore::LuongGeneral:
        w.scoreW = r.take(a + "weight", { Hd, De });
        break;
    case RnnScore::LuongConcat:
        w.scoreW = r.take(a + "weight", { A, Hd + De });
        w.v = r.take(a + "v.weight", { 1, A }).reshaped({ A });
        break;
    case RnnScore::Location:
        break;
    }
    if (luong) {
        w.combineW = r.take("decoder.combine.weight", { Hd, De + Hd });
        w.combineB = r.take("decoder.combine.bias", { Hd });
    }
    w.outW = r.take("decoder.out.weight", { Vt, Hd });
    w.outB = r.take("decoder.out.bias", { Vt });
    r.expectAllUsed();
    const int64_t sos = integer("sos_id", 0), eos = integer("eos_id", 1);
    if (sos >= Vt || eos >= Vt) throw Error(cfgName, "sos_id / eos_id outside the target vocabulary");
    return std::make_shared<RnnSeq2SeqModel>(rnnConfig(cfgName, "rnn_seq2seq", Hd, Vt, sos, eos), std::move(w),
        std::move(src), std::move(tgt), integer("max_length", 50));
}

} // namespace

RnnSeq2SeqModel::RnnSeq2SeqModel(ModelConfig config, RnnSeq2SeqWeights weights, std::vector<std::string> sourceVocab,
    std::vector<std::string> targetVocab, int64_t maxLength)
    : Model(std::move(config))
    , m_w(std::move(weights))
    , m_sourceVocab(std::move(sourceVocab))
    , m_targetVocab(std::move(targetVocab))
    , m_maxLength(maxLength)
{
}

RnnEncoding RnnSeq2SeqModel::encode(const std::vector<int64_t>& source) const
{
    const int64_t S = static_cast<int64_t>(source.size()), H = m_w.encoder.front().hiddenSize();
    if (S == 0) throw Error("encode: empty source");
    if (m_w.score == RnnScore::Location && S > m_w.fixedKeys)
        throw Error("source of " + std::to_string(S) + " tokens exceeds this model's " + std::to_string(m_w.fixedKeys)
            + " attention positions");
    const bool bi = !m_w.encoderReverse.empty();
    const int64_t De = (bi ? 2 : 1) * H;
    RnnEncoding enc;
    enc.length = S;
    std::vector<std::vector<float>> inputs;
    for (int64_t t = 0; t < S; ++t)
        inputs.push_back(rowOf(m_w.sourceEmbedding, source[t], "source"));
    // Layer by layer, as nn.GRU / nn.LSTM with num_layers: a layer's outputs ([forward; backward]) feed the next.
    // Each layer's final state ([forward; backward]) initialises the decoder layer of the same index.
    for (size_t l = 0; l < m_w.encoder.size(); ++l) {
        std::vector<std::vector<float>> outputs(static_cast<size_t>(S));
        auto [h, c] = runDirection(m_w.encoder[l], inputs, false, outputs);
        if (bi) {
            auto [hb, cb] = runDirection(m_w.encoderReverse[l], inputs, true, outputs);
            h = concat(h, hb);
            c = concat(c, cb);
        }
        if (!m_w.bridgeW.empty()) {
            h = affine(h, m_w.bridgeW, m_w.bridgeB);
            for (float& x : h)
                x = std::tanh(x);
            c.assign(h.size(), 0.0f);
        }
        enc.h.insert(enc.h.end(), h.begin(), h.end());
        enc.c.insert(enc.c.end(), c.begin(), c.end());
        inputs = std::move(outputs);
    }
    enc.keys = Tensor({ m_w.score == RnnScore::Location ? m_w.fixedKeys : S, De });
    for (int64_t t = 0; t < S; ++t)
        std::copy(
            inputs[static_cast<size_t>(t)].begin(), inputs[static_cast<size_t>(t)].end(), enc.keys.data() + t * De);
    return enc;
}

RnnDecoderState RnnSeq2SeqModel::initialState(const RnnEncoding& encoding) const
{
    RnnDecoderState s;
    s.h = encoding.h;
    s.c = encoding.c;
    if (m_w.inputFeeding) s.feed.assign(static_cast<size_t>(m_w.decoder.front().hiddenSize()), 0.0f);
    return s;
}

RnnStep RnnSeq2SeqModel::step(const RnnEncoding& encoding, RnnDecoderState& state, int64_t token) const
{
    const std::vector<float> e = rowOf(m_w.targetEmbedding, token, "target");
    const Tensor& keys = encoding.keys;
    // Keys past the source are padding, except for the tutorial, whose location attention spans all K positions.
    const int64_t K = m_w.score == RnnScore::Location ? keys.dim(0) : encoding.length, De = keys.dim(1);
    const Tensor visible
        = keys.dim(0) == K ? keys : Tensor({ K, De }, std::vector<float>(keys.data(), keys.data() + K * De));
    auto attend = [&](const std::vector<float>& query, RnnStep& out) {
        Tensor scores;
        switch (m_w.score) {
        case RnnScore::Bahdanau:
            scores = bahdanauScores(row(query), visible, m_w.queryW, m_w.keyW, m_w.v);
            break;
        case RnnScore::LuongDot:
            scores = luongDotScores(row(query), visible);
            break;
        case RnnScore::LuongGeneral:
            scores = luongGeneralScores(row(query), visible, m_w.scoreW);
            break;
        case RnnScore::LuongConcat:
            scores = luongConcatScores(row(query), visible, m_w.scoreW, m_w.v);
            break;
        case RnnScore::Location:
            scores = linear(row(query), m_w.scoreW, &m_w.scoreB);
            break;
        }
        softmaxRowsInPlace(scores.data(), 1, K);
        out.attention = scores.storage();
        std::vector<float> context(static_cast<size_t>(De), 0.0f);
        for (int64_t k = 0; k < K; ++k)
            for (int64_t d = 0; d < De; ++d)
                context[d] += out.attention[k] * visible.data()[k * De + d];
        return context;
    };
    RnnStep out;
    switch (m_w.score) {
    case RnnScore::Location: {
        const std::vector<float> context = attend(concat(e, state.h), out);
        std::vector<float> x = affine(concat(e, context), m_w.combineW, m_w.combineB);
        for (float& v : x)
            v = v > 0.0f ? v : 0.0f;
        out.logits = affine(stepLayers(m_w.decoder, x, state.h, state.c), m_w.outW, m_w.outB);
        break;
    }
    case RnnScore::Bahdanau: { // scored with the previous top-layer state s_{t-1}
        const size_t Hd = static_cast<size_t>(m_w.decoder.back().hiddenSize());
        const std::vector<float> context
            = attend(std::vector<float>(state.h.end() - static_cast<std::ptrdiff_t>(Hd), state.h.end()), out);
        out.logits = affine(stepLayers(m_w.decoder, concat(e, context), state.h, state.c), m_w.outW, m_w.outB);
        break;
    }
    default: { // Luong: score the new state h_t, then h~ = tanh(Wc [c; h_t]) feeds the output (and the next input)
        const std::vector<float> top
            = stepLayers(m_w.decoder, m_w.inputFeeding ? concat(e, state.feed) : e, state.h, state.c);
        const std::vector<float> context = attend(top, out);
        std::vector<float> attentional = affine(concat(context, top), m_w.combineW, m_w.combineB);
        for (float& v : attentional)
            v = std::tanh(v);
        out.logits = affine(attentional, m_w.outW, m_w.outB);
        if (m_w.inputFeeding) state.feed = std::move(attentional);
        break;
    }
    }
    return out;
}

std::string normalizeTutorialText(const std::string& text)
{
    std::string ascii;
    for (const auto& cp : unicode::decodeUtf8(text))
        for (char32_t lower : unicode::toLower(cp.cp))
            for (char32_t d : unicode::decompose(lower))
                if (unicode::category(d) != unicode::Category::Mn) unicode::appendUtf8(ascii, d);
    std::string out;
    bool gap = false;
    for (char ch : ascii) {
        const bool punct = ch == '.' || ch == '!' || ch == '?';
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || punct) {
            if (gap || (punct && !out.empty())) out += ' ';
            out += ch;
            gap = false;
        } else {
            gap = true;
        }
    }
    // A leading space (from a gap or punctuation at the start) never starts a word.
    return out.size() && out[0] == ' ' ? out.substr(1) : out;
}

std::vector<int64_t> RnnSeq2SeqModel::sourceIds(const std::string& text) const
{
    std::istringstream words(normalizeTutorialText(text));
    std::vector<int64_t> ids;
    for (std::string w; words >> w;) {
        const auto it = std::find(m_sourceVocab.begin(), m_sourceVocab.end(), w);
        if (it == m_sourceVocab.end()) throw Error("word \"" + w + "\" is not in the source vocabulary");
        ids.push_back(it - m_sourceVocab.begin());
    }
    ids.push_back(eosToken());
    return ids;
}

std::string RnnSeq2SeqModel::targetText(const std::vector<int64_t>& ids) const
{
    std::string out;
    for (int64_t id : ids) {
        if (id < 0 || id >= static_cast<int64_t>(m_targetVocab.size()))
            throw Error("target id " + std::to_string(id) + " is out of range");
        out += (out.empty() ? "" : " ") + (id == eosToken() ? std::string("<EOS>") : m_targetVocab[id]);
    }
    return out;
}

std::shared_ptr<RnnSeq2SeqModel> loadRnnSeq2Seq(const std::string& path)
{
    const fs::path dir(path);
    if (fs::exists(dir / "vocab_and_pairs.json")) return loadTutorial(dir);
    return loadGeneral(dir);
}

} // namespace attn
