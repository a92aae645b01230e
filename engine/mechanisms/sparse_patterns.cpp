// SPDX-License-Identifier: MIT
#include "mechanisms/sparse_patterns.h"

#include "core/error.h"
#include "mechanisms/attention_math.h"
#include "mechanisms/mechanism.h"
#include "mechanisms/random_stream.h"

#include <cmath>
#include <cstdlib>
#include <numeric>
#include <utility>

namespace attn {

namespace {

bool inWindow(int64_t i, int64_t j, int64_t w, bool causal)
{
    return causal ? (i - j >= 0 && i - j < w) : std::abs(i - j) < w;
}

void checkPositive(int64_t value, const char* what, const std::string& variant)
{
    if (value < 1) throw Error("variant '" + variant + "': " + what + " must be at least 1");
}

void checkInside(const MechanismSpec& spec, int64_t tokens, const char* what)
{
    for (int64_t p : spec.positions)
        if (p >= tokens)
            throw Error("variant '" + spec.text + "': " + what + " " + std::to_string(p) + " is outside the "
                + std::to_string(tokens) + " tokens");
}

Eigen::VectorXi bucketsOf(const Mat& x, const Mat& rotations)
{
    const Mat projected = x * rotations;
    Eigen::VectorXi out(x.rows());
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        Eigen::Index best = 0, worst = 0;
        const double top = projected.row(i).maxCoeff(&best), bottom = projected.row(i).minCoeff(&worst);
        // [xR, -xR]: the largest of the second half is -min(xR).
        out(i) = -bottom > top ? static_cast<int>(rotations.cols() + worst) : static_cast<int>(best);
    }
    return out;
}

} // namespace

// The patterns are filled down each column: KeepMask is column-major (a row-by-row fill strides a whole column per
// entry, slow at 4,096 tokens).

KeepMask windowPattern(int64_t tokens, int64_t w, bool causal)
{
    KeepMask keep(tokens, tokens);
    for (int64_t j = 0; j < tokens; ++j)
        for (int64_t i = 0; i < tokens; ++i)
            keep(i, j) = inWindow(i, j, w, causal);
    return keep;
}

KeepMask longformerPattern(int64_t tokens, int64_t w, const std::vector<int64_t>& globals, bool causal)
{
    KeepMask keep = windowPattern(tokens, w, causal);
    for (int64_t g : globals) {
        keep.row(g).setOnes();
        keep.col(g).setOnes();
    }
    return keep;
}

KeepMask bigBirdPattern(int64_t tokens, int64_t w, int64_t globals, int64_t random, uint64_t seed, bool causal)
{
    KeepMask keep = windowPattern(tokens, w, causal);
    for (int64_t g = 0; g < std::min(globals, tokens); ++g) {
        keep.row(g).setOnes();
        keep.col(g).setOnes();
    }
    const int64_t blocks = (tokens + w - 1) / w;
    RandomStream rng(seed);
    for (int64_t qb = 0; qb < blocks; ++qb) {
        const int64_t n = causal ? qb + 1 : blocks;
        std::vector<int64_t> candidates(static_cast<size_t>(n));
        std::iota(candidates.begin(), candidates.end(), 0);
        for (int64_t t = 0; t < std::min(random, n); ++t) {
            std::swap(candidates[static_cast<size_t>(t)],
                candidates[static_cast<size_t>(t + static_cast<int64_t>(rng.below(static_cast<uint64_t>(n - t))))]);
            const int64_t kb = candidates[static_cast<size_t>(t)];
            const int64_t q1 = std::min(tokens, (qb + 1) * w), k1 = std::min(tokens, (kb + 1) * w);
            keep.block(qb * w, kb * w, q1 - qb * w, k1 - kb * w).setOnes();
        }
    }
    return keep;
}

KeepMask stridedPattern(int64_t tokens, int64_t s, bool causal)
{
    KeepMask keep(tokens, tokens);
    for (int64_t j = 0; j < tokens; ++j)
        for (int64_t i = 0; i < tokens; ++i)
            keep(i, j) = inWindow(i, j, s, causal) || (std::abs(i - j) % s == 0 && (!causal || j <= i));
    return keep;
}

KeepMask fixedPattern(int64_t tokens, int64_t s, int64_t c)
{
    KeepMask keep(tokens, tokens);
    for (int64_t j = 0; j < tokens; ++j)
        for (int64_t i = 0; i < tokens; ++i)
            keep(i, j) = j / s == i / s || j % s >= s - c;
    return keep;
}

KeepMask paddingPattern(int64_t tokens, const std::vector<int64_t>& padded)
{
    KeepMask keep = KeepMask::Ones(tokens, tokens);
    for (int64_t p : padded)
        keep.col(p).setZero();
    return keep;
}

Mat lshRotations(int64_t dim, int64_t buckets, uint64_t seed)
{
    RandomStream rng(seed);
    Mat r(dim, buckets / 2);
    for (int64_t i = 0; i < dim; ++i)
        for (int64_t j = 0; j < buckets / 2; ++j)
            r(i, j) = static_cast<float>(rng.normal());
    return r;
}

KeepMask swinPattern(const PatchLayout& layout, int64_t w, int64_t s)
{
    const int64_t T = layout.prefix + layout.rows * layout.cols;
    KeepMask keep = KeepMask::Zero(T, T);
    keep.topRows(layout.prefix).setOnes();
    keep.leftCols(layout.prefix).setOnes();
    auto window = [&](int64_t patch) {
        const int64_t r = patch / layout.cols, c = patch % layout.cols;
        return std::pair((r + w - s) / w, (c + w - s) / w);
    };
    for (int64_t j = layout.prefix; j < T; ++j)
        for (int64_t i = layout.prefix; i < T; ++i)
            keep(i, j) = window(i - layout.prefix) == window(j - layout.prefix);
    return keep;
}

KeepMask lshPattern(const Mat& q, const Mat& k, const Mat& rotations)
{
    const Eigen::VectorXi bq = bucketsOf(q, rotations), bk = bucketsOf(k, rotations);
    KeepMask keep(q.rows(), k.rows());
    for (Eigen::Index j = 0; j < k.rows(); ++j)
        for (Eigen::Index i = 0; i < q.rows(); ++i)
            keep(i, j) = bq(i) == bk(j) || i == j;
    return keep;
}

namespace {

/// The head's patch grid: an image model's, or for synthetic input a square sqrt(T) x sqrt(T) grid.
PatchLayout patchLayout(const HeadInputs& in, const MechanismSpec& spec)
{
    if (in.gridRows > 0) return { in.tokens() - in.gridRows * in.gridCols, in.gridRows, in.gridCols };
    const auto side = static_cast<int64_t>(std::llround(std::sqrt(static_cast<double>(in.tokens()))));
    if (in.layer < 0 && side * side == in.tokens()) return { 0, side, side };
    throw Error("variant '" + spec.text
        + "' needs a patch grid: an image model's input (ViT, DeiT), or synthetic input with a square number of "
          "tokens");
}

} // namespace

MechanismResult runSparsePattern(const HeadInputs& in, const MechanismSpec& spec)
{
    const int64_t T = in.tokens();
    const std::vector<int64_t>& n = spec.numbers;
    MechanismResult r;
    KeepMask pattern;
    switch (spec.kind) {
    case MechanismKind::Window:
        checkPositive(n[0], "the window W", spec.text);
        pattern = windowPattern(T, n[0], in.causal);
        break;
    case MechanismKind::Longformer:
        checkPositive(n[0], "the window W", spec.text);
        checkInside(spec, T, "global token");
        pattern = longformerPattern(T, n[0], spec.positions, in.causal);
        break;
    case MechanismKind::BigBird:
        checkPositive(n[0], "the window W", spec.text);
        pattern = bigBirdPattern(T, n[0], n[1], n[2], static_cast<uint64_t>(n[3]), in.causal);
        r.notes["pattern"] = "window W, the first G tokens global, R random key blocks of W keys per block of W "
                             "queries (RandomStream(SEED), partial Fisher-Yates over the candidate blocks)";
        break;
    case MechanismKind::Strided:
        checkPositive(n[0], "the stride S", spec.text);
        pattern = stridedPattern(T, n[0], in.causal);
        break;
    case MechanismKind::Fixed:
        checkPositive(n[0], "the block size S", spec.text);
        checkPositive(n[1], "the summary count C", spec.text);
        if (n[1] > n[0]) throw Error("variant '" + spec.text + "': the summary count C must be at most the block S");
        pattern = fixedPattern(T, n[0], n[1]);
        r.notes["pattern"] = "Sparse Transformer fixed: query i sees key j when floor(j / S) == floor(i / S) or "
                             "j mod S >= S - C (the last C positions of every block of S)";
        break;
    case MechanismKind::Padding:
        checkInside(spec, T, "padded position");
        pattern = paddingPattern(T, spec.positions);
        r.notes["pattern"] = "the listed key positions treated as padding: masked for every query, each row "
                             "renormalised over the keys left (a row with none left is all zero)";
        break;
    case MechanismKind::Lsh: {
        if (n[0] < 2 || n[0] % 2 || n[0] > 4096)
            throw Error("variant '" + spec.text
                + "': BUCKETS must be even and in [2, 4096] (angular LSH hashes to argmax([xR, -xR]))");
        const Mat rotations = lshRotations(in.dim(), n[0], static_cast<uint64_t>(n[1]));
        pattern = lshPattern(in.q, in.k, rotations);
        r.arrays.push_back({ "features", rotations, {} });
        r.notes["pattern"] = "query i sees key j when argmax([q_i R, -q_i R]) == argmax([k_j R, -k_j R]), or j == i; "
                             "R = features.npy [d, BUCKETS / 2] N(0, 1) from RandomStream(SEED)";
        break;
    }
    case MechanismKind::Swin: {
        checkPositive(n[0], "the window W", spec.text);
        if (n[1] >= n[0]) throw Error("variant '" + spec.text + "': the shift S must be below the window W");
        const PatchLayout grid = patchLayout(in, spec);
        pattern = swinPattern(grid, n[0], n[1]);
        r.numbers["grid_rows"] = static_cast<double>(grid.rows);
        r.numbers["grid_cols"] = static_cast<double>(grid.cols);
        r.numbers["prefix_tokens"] = static_cast<double>(grid.prefix);
        r.notes["pattern"] = "Swin windows of W x W patches shifted by S on the " + std::to_string(grid.rows) + " x "
            + std::to_string(grid.cols)
            + " patch grid: patch (r, c) in window (floor((r + W - S) / W), floor((c + W "
              "- S) / W)); the "
            + std::to_string(grid.prefix) + " prefix token(s) global";
        break;
    }
    default:
        throw Error("variant '" + spec.text + "' is not a sparsity pattern");
    }
    const KeepMask keep = (pattern.array() * modelKeepMask(in).array()).matrix();
    KeptAttention kept = keptAttention(in, keep);
    r.probs = std::move(kept.probs);
    r.out = std::move(kept.out);
    r.arrays.push_back({ "mask", keepMaskValues(keep), {} });
    r.notes["mask"] = "mask.npy: the pattern and the model's own mask (causality, sliding window) together";
    return r;
}

} // namespace attn
