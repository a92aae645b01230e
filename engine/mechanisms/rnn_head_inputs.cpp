// SPDX-License-Identifier: MIT
#include "mechanisms/rnn_head_inputs.h"

#include "model/rnn_seq2seq.h"
#include "session/sampler.h"

#include <cmath>

namespace attn {

namespace {

Mat matrix(const Tensor& t)
{
    return matrixOf(t.data(), t.dim(0), t.numel() / t.dim(0));
}

/// Columns side by side: the params layouts of learned_score.h.
Mat beside(std::initializer_list<Mat> parts)
{
    Eigen::Index cols = 0;
    for (const Mat& p : parts)
        cols += p.cols();
    Mat out(parts.begin()->rows(), cols);
    cols = 0;
    for (const Mat& p : parts) {
        out.middleCols(cols, p.cols()) = p;
        cols += p.cols();
    }
    return out;
}

Mat column(const Tensor& t)
{
    return matrixOf(t.data(), t.numel(), 1);
}

LearnedScore learnedScore(const RnnSeq2SeqWeights& w)
{
    LearnedScore s;
    switch (w.score) {
    case RnnScore::Bahdanau:
        s.kind = LearnedScoreKind::Additive;
        s.params = beside({ matrix(w.queryW), matrix(w.keyW), column(w.v) });
        break;
    case RnnScore::LuongDot:
        s.kind = LearnedScoreKind::Dot;
        break;
    case RnnScore::LuongGeneral:
        s.kind = LearnedScoreKind::General;
        s.params = matrix(w.scoreW);
        break;
    case RnnScore::LuongConcat:
        s.kind = LearnedScoreKind::Concat;
        s.params = beside({ matrix(w.scoreW), column(w.v) });
        break;
    case RnnScore::Location:
        s.kind = LearnedScoreKind::Location;
        s.params = beside({ matrix(w.scoreW), column(w.scoreB) });
        break;
    }
    return s;
}

/// The query the model's attention scores with at a step: read before the step (Bahdanau: s_{t-1}; the tutorial:
/// [embedding of the fed token; h_{t-1}]) or after it (Luong: h_t).
std::vector<float> queryState(const RnnSeq2SeqWeights& w, const RnnDecoderState& state, int64_t token)
{
    const auto Hd = static_cast<std::ptrdiff_t>(w.decoder.back().hiddenSize());
    if (w.score != RnnScore::Location) return std::vector<float>(state.h.end() - Hd, state.h.end());
    const int64_t E = w.targetEmbedding.dim(1);
    std::vector<float> q(w.targetEmbedding.data() + token * E, w.targetEmbedding.data() + (token + 1) * E);
    q.insert(q.end(), state.h.begin(), state.h.end());
    return q;
}

} // namespace

RnnHead rnnHeadInputs(const RnnSeq2SeqModel& model, const std::vector<int64_t>& source)
{
    const RnnSeq2SeqWeights& w = model.weights();
    const bool scoresNewState = w.score != RnnScore::Bahdanau && w.score != RnnScore::Location;
    const RnnEncoding encoding = model.encode(source);
    RnnDecoderState state = model.initialState(encoding);
    std::vector<std::vector<float>> queries, attention;
    RnnHead head;
    for (int64_t token = model.startToken(), s = 0; s < model.maxLength(); ++s) {
        std::vector<float> query = queryState(w, state, token);
        const RnnStep step = model.step(encoding, state, token);
        queries.push_back(scoresNewState ? queryState(w, state, token) : std::move(query));
        attention.push_back(step.attention);
        token = argmax(step.logits.data(), static_cast<int64_t>(step.logits.size()));
        head.generated.push_back(token);
        if (token == model.eosToken()) break;
    }
    HeadInputs& in = head.inputs;
    const auto steps = static_cast<int64_t>(queries.size()), keys = static_cast<int64_t>(attention.front().size());
    in.q = Mat(steps, static_cast<Eigen::Index>(queries.front().size()));
    head.modelAttention = Mat(steps, keys);
    for (int64_t i = 0; i < steps; ++i) {
        in.q.row(i) = matrixOf(queries[static_cast<size_t>(i)].data(), 1, in.q.cols());
        head.modelAttention.row(i) = matrixOf(attention[static_cast<size_t>(i)].data(), 1, keys);
    }
    // Keys past the source are the tutorial's zero padding, attended like the rest (RnnSeq2SeqModel::step).
    in.k = matrixOf(encoding.keys.data(), keys, encoding.keys.dim(1));
    in.v = in.k;
    in.learned = learnedScore(w);
    in.layer = in.head = 0;
    in.scale = 1.0 / std::sqrt(static_cast<double>(in.k.cols()));
    in.origin = model.description() + ", cross-attention over " + std::to_string(keys) + " encoder positions ("
        + learnedScoreName(in.learned.kind) + " score, learned)";
    return head;
}

} // namespace attn
