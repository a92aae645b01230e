// SPDX-License-Identifier: MIT
#pragma once
// Word alignments: hard alignment from attention, symmetrisation, Pharaoh / NAACL I/O and AER scoring (Och & Ney).
#include "core/tensor.h"

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace attn {

/// (source word i, target word j), both 0-based: Pharaoh "i-j".
using Link = std::pair<int64_t, int64_t>;
using Links = std::set<Link>;

/// Gold links of one sentence: sure S and possible P; `possible` always contains every sure link (P ⊇ S).
struct GoldAlignment {
    Links sure, possible;
};

/// For each target word j (row of attention [T, S]) the source word with the largest weight (first on ties).
Links argmaxPerTarget(const Tensor& attention);
/// For each source word i (column) the target word with the largest weight (first on ties).
Links argmaxPerSource(const Tensor& attention);

Links intersectLinks(const Links& a, const Links& b);
/// Koehn's grow-diag: start from the intersection and add union links next to (incl. diagonally) an aligned
/// point whose source or target word is still unaligned, until nothing changes. With `final`, then add union
/// links whose source or target word is still unaligned (grow-diag-final). Points are visited in Moses' / NLTK's
/// order (source-major sweep, links usable as soon as added), so the result matches those tools.
Links growDiag(const Links& a, const Links& b, bool final);

/// The links of the reverse direction (a model translating target -> source: first = our target word, second = our
/// source word, as its own `align` writes them) turned into (source, target) ones.
Links transposeLinks(const Links& links);

/// How two directions combine into one alignment.
enum class Symmetrization { Intersection, GrowDiag, GrowDiagFinal };
/// "intersection", "grow-diag" or "grow-diag-final"; throws Error for anything else.
Symmetrization parseSymmetrization(const std::string& name);
/// Combines the forward links with the reverse direction's, both (source, target) (see transposeLinks).
Links symmetrize(const Links& forward, const Links& reverse, Symmetrization rule);
/// Throws Error naming `where` when a link lies outside sourceWords x targetWords (e.g. a reverse alignment of
/// another sentence, or a model that splits the sentence into other words).
void expectLinksWithin(const Links& links, int64_t sourceWords, int64_t targetWords, const std::string& where);

/// "0-0 1-2 ..." in ascending (i, j) order.
std::string formatPharaoh(const Links& links);
/// Parses one Pharaoh line: "i-j" sure links, "i?j" (or "i-j-P") possible ones. Throws Error naming `where`.
GoldAlignment parsePharaohLine(const std::string& line, const std::string& where);

/// A gold file: Pharaoh (one line per sentence) or NAACL/WPT ("sent i j [S|P] [conf]" per link, sentence and word
/// numbers 1-based, 0 = NULL, NULL links dropped). The format is detected from the first non-empty line (NAACL lines
/// have 3 to 5 whitespace-separated fields and no '-' or '?'). NAACL files give max sentence id entries.
std::vector<GoldAlignment> readGoldAlignments(const std::string& path);

struct AlignmentScore {
    int64_t predicted = 0; ///< |A|
    int64_t sure = 0; ///< |S|
    int64_t hitsSure = 0; ///< |A ∩ S|
    int64_t hitsPossible = 0; ///< |A ∩ P|
    double precision = 0.0; ///< |A∩P| / |A|
    double recall = 0.0; ///< |A∩S| / |S|
    double aer = 1.0; ///< 1 - (|A∩S| + |A∩P|) / (|A| + |S|)
};

/// Corpus-level counts summed over sentences, then the ratios. Throws Error if the sentence counts differ.
AlignmentScore scoreAlignments(const std::vector<Links>& predicted, const std::vector<GoldAlignment>& gold);

} // namespace attn
