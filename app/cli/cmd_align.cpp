// SPDX-License-Identifier: MIT
// `align MODEL --src FILE --tgt FILE [--gold FILE] [--layer L --head H | --all-heads] [--out FILE]`: word alignments
// from cross-attention under teacher forcing. The attention row of target piece j is the one of the decoder step
// that predicts it; pieces merge into words (align/word_pieces.h) and each target word links to its argmax source
// word. Without --layer/--head the heads of the last layer are averaged. Pharaoh lines go to --out or stdout; with
// --gold, precision / recall / AER per head (and for the best head, whose alignments are then written) follow.
// `--reverse MODEL` (a model translating target -> source) aligns each pair the other way too (its last-layer head
// mean, teacher-forcing the source) and every alignment above becomes the two directions combined by
// `--symmetrize intersection|grow-diag|grow-diag-final` (default grow-diag-final).
#include "align/alignment.h"
#include "align/word_pieces.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "core/error.h"
#include "core/input_file.h"
#include "session/beam_search.h"
#include "session/translator.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace attn::cli {
namespace {

std::vector<std::string> readLines(const std::string& path)
{
    std::istringstream in(readInputFile(path, file_caps::kText, "sentence file"));
    std::vector<std::string> out;
    for (std::string l; std::getline(in, l);)
        out.push_back(l);
    return out;
}

/// One sentence pair: per step cross-attention [layers, heads, K] and the word maps of both sides.
struct PairAttention {
    std::vector<Tensor> steps;
    std::vector<int64_t> sourceWords, targetWords;
};

/// Teacher-forces `tgtText` after `srcText`: the attention row of target piece j is the step that predicts it.
PairAttention teacherForced(const Translator& model, const std::string& srcText, const std::string& tgtText)
{
    const AlignedSide s = model.source(srcText), t = model.target(tgtText);
    PairAttention p;
    p.sourceWords = s.wordOfPiece;
    p.targetWords = t.wordOfPiece;
    auto decoder = model.decoder(s.ids);
    int64_t next = model.startToken();
    for (int64_t id : t.ids) {
        p.steps.push_back(decoder->step(next).crossAttention);
        next = id;
    }
    return p;
}

Tensor headMatrix(const PairAttention& p, int64_t layer, int64_t head, bool meanOfLastLayer)
{
    const int64_t T = static_cast<int64_t>(p.steps.size()), S = static_cast<int64_t>(p.sourceWords.size());
    const int64_t H = p.steps[0].dim(1), K = p.steps[0].dim(2);
    Tensor m({ T, S });
    for (int64_t t = 0; t < T; ++t) {
        const Tensor& a = p.steps[t];
        const int64_t l = meanOfLastLayer ? a.dim(0) - 1 : layer;
        for (int64_t h = meanOfLastLayer ? 0 : head; h < (meanOfLastLayer ? H : head + 1); ++h)
            for (int64_t s = 0; s < S; ++s) // keys past the source (the RNN tutorial's padding) are not words
                m.data()[t * S + s] += a.data()[(l * H + h) * K + s] / (meanOfLastLayer ? static_cast<float>(H) : 1.0f);
    }
    return wordAttention(m, p.targetWords, p.sourceWords);
}

} // namespace

int runAlign(const std::vector<std::string>& words)
{
    const Args args(words, { "all-heads" });
    args.allowOnly(
        { "src", "tgt", "gold", "layer", "head", "all-heads", "out", "tokenizer", "reverse", "symmetrize" });
    const Translator model(args.positional(0, "MODEL"), args.get("tokenizer", ""));
    const auto src = readLines(args.require("src")), tgt = readLines(args.require("tgt"));
    if (src.size() != tgt.size())
        throw Error(args.require("tgt"),
            std::to_string(tgt.size()) + " lines but the source has " + std::to_string(src.size()));
    const bool allHeads = args.has("all-heads"), chosen = args.has("layer") || args.has("head");
    if (allHeads && chosen) throw UsageError("--all-heads and --layer/--head exclude each other");
    if (chosen && !(args.has("layer") && args.has("head"))) throw UsageError("give both --layer L and --head H");

    if (args.has("symmetrize") && !args.has("reverse")) throw UsageError("--symmetrize needs --reverse MODEL");
    const Symmetrization rule = parseSymmetrization(args.get("symmetrize", "grow-diag-final"));

    std::vector<PairAttention> pairs;
    std::vector<Links> reverse; // per pair, (source, target) links of the reverse model
    std::unique_ptr<Translator> reverseModel;
    if (args.has("reverse")) reverseModel = std::make_unique<Translator>(args.require("reverse"));
    for (size_t k = 0; k < src.size(); ++k) {
        pairs.push_back(teacherForced(model, src[k], tgt[k]));
        if (!reverseModel) continue;
        const Tensor back = headMatrix(teacherForced(*reverseModel, tgt[k], src[k]), 0, 0, true);
        const int64_t sourceWords = wordCount(pairs.back().sourceWords), targetWords = wordCount(pairs.back().targetWords);
        if (back.dim(0) != sourceWords || back.dim(1) != targetWords)
            throw Error(args.require("reverse"),
                "line " + std::to_string(k + 1) + ": splits the pair into " + std::to_string(back.dim(1)) + " + "
                    + std::to_string(back.dim(0)) + " words, the forward model into " + std::to_string(targetWords)
                    + " + " + std::to_string(sourceWords));
        reverse.push_back(transposeLinks(argmaxPerTarget(back)));
    }
    const int64_t layers = pairs.empty() ? 0 : pairs[0].steps[0].dim(0),
                  heads = pairs.empty() ? 0 : pairs[0].steps[0].dim(1);
    const int64_t layer = args.getInt("layer", 0), head = args.getInt("head", 0);
    if (chosen && (layer < 0 || layer >= layers || head < 0 || head >= heads))
        throw UsageError(
            "--layer must be in [0, " + std::to_string(layers) + ") and --head in [0, " + std::to_string(heads) + ")");

    auto alignAll = [&](int64_t l, int64_t h, bool mean) {
        std::vector<Links> out;
        for (size_t k = 0; k < pairs.size(); ++k) {
            Links forward = argmaxPerTarget(headMatrix(pairs[k], l, h, mean));
            out.push_back(reverse.empty() ? std::move(forward) : symmetrize(forward, reverse[k], rule));
        }
        return out;
    };
    std::vector<Links> result = alignAll(layer, head, !chosen && !allHeads);
    std::string report;
    if (args.has("gold")) {
        const std::vector<GoldAlignment> gold = readGoldAlignments(args.require("gold"));
        auto line = [](const std::string& name, const AlignmentScore& s) {
            char buf[160];
            std::snprintf(buf, sizeof buf, "%-14s precision %.4f recall %.4f AER %.4f\n", name.c_str(), s.precision,
                s.recall, s.aer);
            return std::string(buf);
        };
        if (allHeads) {
            double bestAer = 2.0;
            std::string bestName;
            for (int64_t l = 0; l < layers; ++l)
                for (int64_t h = 0; h < heads; ++h) {
                    std::vector<Links> a = alignAll(l, h, false);
                    const AlignmentScore s = scoreAlignments(a, gold);
                    const std::string name = "L" + std::to_string(l) + " H" + std::to_string(h);
                    report += line(name, s);
                    if (s.aer < bestAer) {
                        bestAer = s.aer;
                        bestName = name;
                        result = std::move(a);
                    }
                }
            report += line("best " + bestName, scoreAlignments(result, gold));
        } else {
            report += line(chosen ? "L" + std::to_string(layer) + " H" + std::to_string(head) : "last-layer mean",
                scoreAlignments(result, gold));
        }
    }
    std::ofstream file;
    if (args.has("out")) {
        file.open(args.require("out"));
        if (!file) throw Error(args.require("out"), "cannot open for writing");
    }
    std::ostream& out = args.has("out") ? file : std::cout;
    for (const Links& l : result)
        out << formatPharaoh(l) << "\n";
    std::cout << report;
    return 0;
}

} // namespace attn::cli
