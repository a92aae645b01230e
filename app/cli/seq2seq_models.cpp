// SPDX-License-Identifier: MIT
#include "cli/seq2seq_models.h"

#include "cli/model_args.h"
#include "core/error.h"
#include "model/model_loader.h"

#include <algorithm>
#include <sstream>

namespace attn::cli {

TranslationModel::TranslationModel(const Args& args, const std::string& path)
{
    if (isRnnSeq2SeqFolder(path)) {
        m_rnn = loadRnnSeq2Seq(path);
        return;
    }
    const ModelSource source = probeModel(path);
    m_transformer = std::dynamic_pointer_cast<const EncoderDecoderModel>(loadModel(source));
    if (!m_transformer) throw Error(path, "not an encoder-decoder or RNN seq2seq model");
    std::string why;
    m_tokenizer = modelTokenizer(args, source, false, &why);
}

Pieces TranslationModel::pieces(const std::string& text, bool sourceSide) const
{
    Pieces p;
    if (m_rnn) {
        if (sourceSide) {
            p.ids = m_rnn->sourceIds(text);
        } else {
            std::istringstream words(normalizeTutorialText(text));
            for (std::string w; words >> w;) {
                const auto& vocab = m_rnn->targetVocab();
                const auto it = std::find(vocab.begin(), vocab.end(), w);
                if (it == vocab.end()) throw Error("word \"" + w + "\" is not in the target vocabulary");
                p.ids.push_back(it - vocab.begin());
            }
            p.ids.push_back(m_rnn->eosToken());
        }
        const auto& vocab = sourceSide ? m_rnn->sourceVocab() : m_rnn->targetVocab();
        for (int64_t id : p.ids) {
            p.text.push_back("\xE2\x96\x81" + vocab[id]); // every vocabulary entry is a whole word
            p.special.push_back(id == m_rnn->eosToken());
        }
        return p;
    }
    if (m_tokenizer) {
        for (const Token& t : m_tokenizer->encode(text, true)) {
            p.ids.push_back(t.id);
            p.text.push_back(t.piece);
            p.special.push_back(t.special);
        }
        return p;
    }
    // No tokenizer: the text is ids separated by spaces or commas, one word each.
    std::string spaced = text;
    std::replace(spaced.begin(), spaced.end(), ',', ' ');
    std::istringstream in(spaced);
    for (std::string w; in >> w;) {
        try {
            p.ids.push_back(std::stoll(w));
        } catch (const std::exception&) {
            throw Error("\"" + w + "\" is not a token id, and the model has no tokenizer");
        }
        p.text.push_back("\xE2\x96\x81" + w);
        p.special.push_back(p.ids.back() == eosToken());
    }
    return p;
}

Pieces TranslationModel::source(const std::string& text) const
{
    return pieces(text, true);
}
Pieces TranslationModel::target(const std::string& text) const
{
    return pieces(text, false);
}

std::string TranslationModel::decode(const std::vector<int64_t>& ids) const
{
    if (m_rnn) return m_rnn->targetText(ids);
    if (m_tokenizer) return m_tokenizer->decode(ids, true);
    std::string out;
    for (int64_t id : ids)
        out += (out.empty() ? "" : " ") + std::to_string(id);
    return out;
}

int64_t TranslationModel::startToken() const
{
    return m_rnn ? m_rnn->startToken() : m_transformer->decoderStartToken();
}

int64_t TranslationModel::eosToken() const
{
    return m_rnn ? m_rnn->eosToken() : m_transformer->config().eosTokenId;
}

std::unique_ptr<BeamDecoder> TranslationModel::decoder(const std::vector<int64_t>& sourceIds) const
{
    if (m_rnn) return makeBeamDecoder(m_rnn, std::make_shared<const RnnEncoding>(m_rnn->encode(sourceIds)));
    EncoderInput input;
    input.tokens = sourceIds;
    return makeBeamDecoder(m_transformer, m_transformer->encode(input, {}));
}

} // namespace attn::cli
