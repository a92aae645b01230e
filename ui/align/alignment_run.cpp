// SPDX-License-Identifier: MIT
#include "align/alignment_run.h"

#include "align/word_pieces.h"
#include "core/error.h"
#include "session/cross_attention_source.h"

#include <algorithm>
#include <cmath>

namespace attn::ui {

namespace {

/// The [steps, K] cross-attention of one layer and head of `hyp`: a tile of its derived source, or its kept rows.
Tensor headRows(const AlignmentHypothesis& hyp, int64_t layer, int64_t head)
{
    if (hyp.cross) return *hyp.cross->rows(layer, head, 0, hyp.cross->numQueries());
    const int64_t T = hyp.length(), H = hyp.heads(), K = hyp.steps[0].dim(2);
    Tensor rows({ T, K });
    for (int64_t t = 0; t < T; ++t)
        std::copy_n(hyp.steps[static_cast<size_t>(t)].data() + (layer * H + head) * K, K, rows.data() + t * K);
    return rows;
}

} // namespace

Tensor wordMatrix(const AlignmentHypothesis& hyp, const AlignedSide& source, const AlignmentAggregation& agg,
    const std::function<bool()>& stop)
{
    if (hyp.length() == 0) throw Error("alignment: the hypothesis has no decoder steps");
    const int64_t T = hyp.length(), S = static_cast<int64_t>(source.ids.size());
    const int64_t L = hyp.layers(), H = hyp.heads(), K = hyp.cross ? hyp.cross->numKeys() : hyp.steps[0].dim(2);
    if (agg.layer < -1 || agg.layer >= L)
        throw Error("alignment: layer " + std::to_string(agg.layer) + " out of range");
    if (agg.heads == AlignmentAggregation::Heads::One && (agg.head < 0 || agg.head >= H))
        throw Error("alignment: head " + std::to_string(agg.head) + " out of range");
    if (K < S) throw Error("alignment: " + std::to_string(K) + " attention keys for " + std::to_string(S) + " pieces");
    const bool takeMax = agg.heads == AlignmentAggregation::Heads::Max;
    const int64_t l0 = agg.layer < 0 ? 0 : agg.layer, l1 = agg.layer < 0 ? L : agg.layer + 1;
    const int64_t h0 = agg.heads == AlignmentAggregation::Heads::One ? agg.head : 0;
    const int64_t h1 = agg.heads == AlignmentAggregation::Heads::One ? agg.head + 1 : H;
    // Per layer the heads' max or sum of each (step, source piece), then the mean over the layers.
    std::vector<double> layerSum(static_cast<size_t>(T * S), 0.0);
    for (int64_t l = l0; l < l1; ++l) {
        std::vector<double> v(static_cast<size_t>(T * S), takeMax ? -INFINITY : 0.0);
        for (int64_t h = h0; h < h1; ++h) {
            if (stop && stop()) throw Error("alignment: the word matrix was superseded by a newer request");
            const Tensor rows = headRows(hyp, l, h);
            for (int64_t t = 0; t < T; ++t)
                for (int64_t s = 0; s < S; ++s) {
                    const double w = rows.data()[t * K + s];
                    double& x = v[static_cast<size_t>(t * S + s)];
                    x = takeMax ? std::max(x, w) : x + w;
                }
        }
        const double perHead = agg.heads == AlignmentAggregation::Heads::Mean ? static_cast<double>(h1 - h0) : 1.0;
        for (size_t i = 0; i < v.size(); ++i)
            layerSum[i] += v[i] / perHead;
    }
    Tensor pieces({ T, S });
    for (size_t i = 0; i < layerSum.size(); ++i)
        pieces.data()[i] = static_cast<float>(layerSum[i] / static_cast<double>(l1 - l0));
    return wordAttention(pieces, hyp.target.wordOfPiece, source.wordOfPiece);
}

namespace {

/// The steps' attention as a hypothesis keeps it: derived from their queries when the decoder has cross keys, else
/// the rows themselves.
void keepAttention(AlignmentHypothesis& hyp, const std::shared_ptr<const CrossKeys>& keys,
    const std::vector<Tensor>& queries, std::vector<Tensor> rows, const std::shared_ptr<Backend>& backend)
{
    if (keys && !queries.empty() && !queries.front().empty())
        hyp.cross = crossAttentionSource(*keys, queries, backend);
    else
        hyp.steps = std::move(rows);
}

/// Teacher-forces `target` after `source` on `backend`; the attention row of target piece j is the one of the step that
/// predicts it (fed the piece before). The score is the reference's log-probability.
AlignmentHypothesis teacherForced(const Translator& translator, const AlignedSide& source, AlignedSide target,
    const std::shared_ptr<Backend>& backend)
{
    AlignmentHypothesis forced;
    forced.label = "reference";
    forced.target = std::move(target);
    forced.text = translator.text(forced.target.ids);
    forced.finished = true;
    const std::unique_ptr<BeamDecoder> decoder = translator.decoder(source.ids, backend);
    const std::shared_ptr<const CrossKeys> keys = decoder->crossKeys();
    std::vector<Tensor> queries, rows;
    int64_t next = translator.startToken();
    for (int64_t id : forced.target.ids) {
        BeamStepOutput out = decoder->step(next);
        const float top = *std::max_element(out.logits.begin(), out.logits.end());
        double sum = 0.0;
        for (float x : out.logits)
            sum += std::exp(static_cast<double>(x - top));
        forced.score += static_cast<double>(out.logits[static_cast<size_t>(id)] - top) - std::log(sum);
        (keys ? queries : rows).push_back(std::move(keys ? out.crossQueries : out.crossAttention));
        next = id;
    }
    keepAttention(forced, keys, queries, std::move(rows), backend);
    return forced;
}

std::string joinWords(const std::vector<std::string>& words)
{
    std::string out;
    for (const std::string& w : words)
        out += (out.empty() ? "" : " ") + w;
    return out;
}

} // namespace

AlignmentRunPtr runAlignment(const Translator& translator, const std::string& sourceText, const std::string& reference,
    int64_t beamWidth, const std::shared_ptr<Backend>& backend)
{
    auto run = std::make_shared<AlignmentRun>();
    run->source = translator.source(sourceText);
    if (!reference.empty())
        run->hypotheses.push_back(teacherForced(translator, run->source, translator.target(reference), backend));
    if (beamWidth > 0) {
        const std::unique_ptr<BeamDecoder> start = translator.decoder(run->source.ids, backend);
        BeamOptions options;
        options.width = beamWidth;
        options.maxNewTokens = translator.maxNewTokens();
        options.startToken = translator.startToken();
        options.eosToken = translator.eosToken();
        int rank = 1;
        for (BeamHypothesis& beam : beamSearch(*start, options)) {
            AlignmentHypothesis hyp;
            hyp.label = "beam " + std::to_string(rank++);
            hyp.text = translator.text(beam.tokens);
            hyp.score = beam.score;
            hyp.finished = beam.finished;
            hyp.target = translator.generated(beam.tokens);
            keepAttention(hyp, start->crossKeys(), beam.crossQueries, std::move(beam.crossAttention), backend);
            run->hypotheses.push_back(std::move(hyp));
        }
    }
    if (run->hypotheses.empty()) throw Error("alignment: give a reference translation or a beam width of at least 1");
    return run;
}

AlignmentRun stepwiseRun(const Translator& translator, AlignedSide source, const StepwiseTranslation& decoding,
    const std::shared_ptr<Backend>& backend)
{
    AlignmentRun run;
    run.source = std::move(source);
    run.stepwise = true;
    AlignmentHypothesis greedy;
    greedy.label = "greedy";
    greedy.text = translator.text(decoding.tokens());
    greedy.score = decoding.logProb();
    greedy.finished = decoding.finished();
    greedy.target = translator.generated(decoding.tokens());
    keepAttention(greedy, decoding.crossKeys(), decoding.crossQueries(), decoding.crossAttention(), backend);
    run.hypotheses.push_back(std::move(greedy));
    return run;
}

void addReverseLinks(AlignmentRun& run, const Translator& reverse, const std::shared_ptr<Backend>& backend)
{
    const int64_t sourceWords = static_cast<int64_t>(run.source.words.size());
    for (AlignmentHypothesis& hyp : run.hypotheses) {
        const int64_t targetWords = static_cast<int64_t>(hyp.target.words.size());
        // The words, not the text: a generated text may carry markers (the RNN's "<EOS>") that are no words.
        const AlignedSide reverseSource = reverse.source(joinWords(hyp.target.words));
        const AlignmentHypothesis back
            = teacherForced(reverse, reverseSource, reverse.target(joinWords(run.source.words)), backend);
        AlignmentAggregation lastLayerMean;
        lastLayerMean.layer = std::max<int64_t>(back.layers() - 1, 0);
        const Tensor m = wordMatrix(back, reverseSource, lastLayerMean); // [source words, target words]
        if (m.dim(0) != sourceWords || m.dim(1) != targetWords)
            throw Error("reverse model: it splits \"" + hyp.text + "\" and its source into " + std::to_string(m.dim(1))
                + " + " + std::to_string(m.dim(0)) + " words, the model into " + std::to_string(targetWords) + " + "
                + std::to_string(sourceWords));
        hyp.reverseLinks = transposeLinks(argmaxPerTarget(m));
    }
}

} // namespace attn::ui
