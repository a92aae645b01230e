// SPDX-License-Identifier: MIT
#include "session/translator.h"

#include "align/word_pieces.h"
#include "core/error.h"
#include "model/model_loader.h"
#include "tokenizer/tokenizer_loader.h"

#include <algorithm>
#include <sstream>
#include <string_view>

namespace attn {
namespace {
const std::string kWordStart = "\xE2\x96\x81"; // SentencePiece's "▁"

std::string withoutMarker(const std::string& piece)
{
    for (const std::string_view marker :
        { std::string_view(kWordStart), std::string_view("\xC4\xA0"), std::string_view("##") })
        if (piece.rfind(marker, 0) == 0) return piece.substr(marker.size());
    return piece;
}
} // namespace

bool Translator::accepts(const std::string& path)
{
    try {
        return (probeModel(path).config.capabilities & kTranslate) != 0;
    } catch (const Error&) {
        return false;
    }
}

Translator::Translator(const std::string& path, const std::string& tokenizerPath)
    : Translator(path, tokenizerPath, [](const ModelSource& source) -> std::shared_ptr<const Model> {
        return loadModel(source);
    })
{
}

Translator::Translator(const std::string& path, ModelRegistry& models, const std::string& tokenizerPath)
    : Translator(path, tokenizerPath, [&models](const ModelSource& source) { return models.model(source); })
{
}

Translator::Translator(const std::string& path, const std::string& tokenizerPath,
    const std::function<std::shared_ptr<const Model>(const ModelSource&)>& load)
    : m_path(path)
{
    const ModelSource source = probeModel(path);
    const std::shared_ptr<const Model> model = load(source);
    m_rnn = std::dynamic_pointer_cast<const RnnSeq2SeqModel>(model);
    if (m_rnn) return; // word-level vocabularies of its own: no tokenizer
    m_transformer = std::dynamic_pointer_cast<const EncoderDecoderModel>(model);
    if (!m_transformer) throw Error(path, "not an encoder-decoder or RNN seq2seq model");
    if (!tokenizerPath.empty()) {
        m_tokenizer = loadTokenizer(source, tokenizerPath); // an explicit tokenizer must load
        return;
    }
    try {
        m_tokenizer = loadTokenizer(source);
    } catch (const Error& e) {
        m_noTokenizer = e.what(); // like the CLI: without a tokenizer the texts are token ids
    }
}

std::vector<int64_t> Translator::parseIds(const std::string& text) const
{
    std::string spaced = text;
    std::replace(spaced.begin(), spaced.end(), ',', ' ');
    std::istringstream in(spaced);
    std::vector<int64_t> ids;
    const int64_t vocab = m_transformer->config().vocabSize;
    for (std::string w; in >> w;) {
        size_t used = 0;
        int64_t id = -1;
        try {
            id = std::stoll(w, &used);
        } catch (const std::exception&) { // reported below with the vocabulary bound
        }
        if (used != w.size() || id < 0 || id >= vocab)
            throw Error(
                "\"" + w + "\" is not a token id below " + std::to_string(vocab) + ", and the model has no tokenizer");
        ids.push_back(id);
    }
    return ids;
}

AlignedSide Translator::finish(AlignedSide side) const
{
    side.wordOfPiece = wordIndexOfPieces(side.pieces, side.special);
    side.words.assign(static_cast<size_t>(wordCount(side.wordOfPiece)), std::string());
    for (size_t p = 0; p < side.pieces.size(); ++p)
        if (side.wordOfPiece[p] >= 0)
            side.words[static_cast<size_t>(side.wordOfPiece[p])] += withoutMarker(side.pieces[p]);
    return side;
}

AlignedSide Translator::tokenized(const std::vector<Token>& tokens) const
{
    AlignedSide side;
    for (const Token& t : tokens) {
        side.ids.push_back(t.id);
        side.pieces.push_back(t.piece);
        side.special.push_back(t.special);
    }
    return finish(std::move(side));
}

AlignedSide Translator::source(const std::string& text) const
{
    AlignedSide side;
    if (m_rnn) {
        side.ids = m_rnn->sourceIds(text);
        for (int64_t id : side.ids) { // every vocabulary entry is a whole word
            side.pieces.push_back(kWordStart + m_rnn->sourceVocab()[static_cast<size_t>(id)]);
            side.special.push_back(id == m_rnn->eosToken());
        }
        return finish(std::move(side));
    }
    if (!m_tokenizer) return generated(parseIds(text));
    return tokenized(m_tokenizer->encode(text, true));
}

AlignedSide Translator::target(const std::string& text) const
{
    if (!m_rnn && !m_tokenizer) {
        std::vector<int64_t> ids = parseIds(text);
        ids.push_back(eosToken());
        return generated(ids);
    }
    if (!m_rnn) return tokenized(m_tokenizer->encodeTarget(text, true)); // EOS appended, as on the source side
    std::vector<int64_t> ids;
    std::istringstream words(normalizeTutorialText(text));
    const auto& vocab = m_rnn->targetVocab();
    for (std::string w; words >> w;) {
        const auto it = std::find(vocab.begin(), vocab.end(), w);
        if (it == vocab.end()) throw Error("word \"" + w + "\" is not in the target vocabulary");
        ids.push_back(it - vocab.begin());
    }
    ids.push_back(m_rnn->eosToken());
    return generated(ids);
}

AlignedSide Translator::generated(const std::vector<int64_t>& ids) const
{
    AlignedSide side;
    side.ids = ids;
    for (int64_t id : ids) {
        if (m_rnn) {
            side.pieces.push_back(kWordStart + m_rnn->targetVocab()[static_cast<size_t>(id)]);
            side.special.push_back(id == m_rnn->eosToken());
            continue;
        }
        if (!m_tokenizer) {
            side.pieces.push_back(kWordStart + std::to_string(id));
            side.special.push_back(id == eosToken());
            continue;
        }
        // tokenText shows a word-start marker as a leading space; give it back the marker the merge rule reads.
        std::string piece = m_tokenizer->tokenText(id);
        if (!piece.empty() && piece[0] == ' ') piece = kWordStart + piece.substr(1);
        side.pieces.push_back(piece);
        side.special.push_back(m_tokenizer->isSpecial(id));
    }
    return finish(std::move(side));
}

std::string Translator::text(const std::vector<int64_t>& ids) const
{
    if (m_rnn) return m_rnn->targetText(ids);
    if (m_tokenizer) return m_tokenizer->decode(ids, true);
    std::string out;
    for (int64_t id : ids)
        out += (out.empty() ? "" : " ") + std::to_string(id);
    return out;
}

int64_t Translator::startToken() const
{
    return m_rnn ? m_rnn->startToken() : m_transformer->decoderStartToken();
}

int64_t Translator::eosToken() const
{
    return m_rnn ? m_rnn->eosToken() : m_transformer->config().eosTokenId;
}

int64_t Translator::maxNewTokens() const
{
    return m_rnn ? m_rnn->maxLength() : 64;
}

std::unique_ptr<BeamDecoder> Translator::decoder(
    const std::vector<int64_t>& sourceIds, const std::shared_ptr<Backend>& backend) const
{
    if (m_rnn) return makeBeamDecoder(m_rnn, std::make_shared<const RnnEncoding>(m_rnn->encode(sourceIds)));
    EncoderInput input;
    input.tokens = sourceIds;
    ForwardOptions options;
    options.backend = backend.get();
    return makeBeamDecoder(m_transformer, m_transformer->encode(input, options), {}, backend);
}

std::string Translator::describe() const
{
    return (m_rnn ? "RNN seq2seq " : "encoder-decoder ") + m_path
        + (m_noTokenizer.empty() ? "" : " (no tokenizer, texts are token ids: " + m_noTokenizer + ")");
}

} // namespace attn
