// SPDX-License-Identifier: MIT
#include "mechanisms/flash_attention.h"

#include "core/error.h"
#include "mechanisms/attention_math.h"
#include "mechanisms/mechanism.h"

#include <cmath>
#include <limits>
#include <numeric>

namespace attn {

AttentionIo attentionIo(
    int64_t tokens, int64_t dim, int64_t bq, int64_t bk, const std::function<bool(int64_t qb, int64_t kb)>& visited)
{
    const double T = static_cast<double>(tokens), d = static_cast<double>(dim), bytes = sizeof(float);
    AttentionIo io;
    io.standard = bytes * (4.0 * T * d + 4.0 * T * T);
    double kvRows = 0.0;
    for (int64_t qb = 0; qb * bq < tokens; ++qb)
        for (int64_t kb = 0; kb * bk < tokens; ++kb)
            if (visited(qb, kb)) kvRows += static_cast<double>(std::min(bk, tokens - kb * bk));
    io.flash = bytes * (2.0 * T * d + T + 2.0 * kvRows * d);
    return io;
}

AttentionIo attentionIo(int64_t tokens, int64_t dim, int64_t bq, int64_t bk, bool causal)
{
    // A causal tile is visited when its first key is not after its last query.
    return attentionIo(tokens, dim, bq, bk,
        [&](int64_t qb, int64_t kb) { return !causal || kb * bk <= std::min(tokens, (qb + 1) * bq) - 1; });
}

namespace {

/// Which tiles of the whole head hold a visible entry: [query blocks, key blocks] (masked tiles are skipped).
KeepMask visitedTiles(const HeadInputs& in, int64_t bq, int64_t bk)
{
    const int64_t T = in.tokens(), S = in.keyCount();
    const KeepMask keep = modelKeepMask(in);
    KeepMask tiles((T + bq - 1) / bq, (S + bk - 1) / bk);
    for (int64_t qb = 0; qb < tiles.rows(); ++qb)
        for (int64_t kb = 0; kb < tiles.cols(); ++kb) {
            const int64_t q0 = qb * bq, k0 = kb * bk;
            tiles(qb, kb) = keep.block(q0, k0, std::min(bq, T - q0), std::min(bk, S - k0)).any();
        }
    return tiles;
}

} // namespace

FlashRows flashAttentionRows(const HeadInputs& in, int64_t bq, int64_t bk, const std::vector<int64_t>& rows)
{
    if (bq < 1 || bk < 1) throw Error("flash attention: the block sizes BQ and BK must be at least 1");
    const int64_t T = in.tokens(), d = in.dim(), keyBlocks = (in.keyCount() + bk - 1) / bk;
    for (size_t i = 0; i < rows.size(); ++i)
        if (rows[i] < 0 || rows[i] >= T || (i > 0 && rows[i] <= rows[i - 1]))
            throw Error("flash attention: query rows must ascend inside [0, " + std::to_string(T) + ")");
    constexpr double minusInf = -std::numeric_limits<double>::infinity();
    const KeepMask tiles = visitedTiles(in, bq, bk);
    const KeepMask keep = modelKeepMask(in, rows);
    const auto n = static_cast<Eigen::Index>(rows.size());
    FlashRows r;
    r.rows = rows;
    r.out = Mat::Zero(n, d);
    r.runningMax.resize(keyBlocks, n);
    r.runningSum.resize(keyBlocks, n);
    r.lse.resize(n);
    // The requested rows of one query block at a time, [first, end) of `rows`.
    for (Eigen::Index first = 0, end = 0; first < n; first = end) {
        const int64_t qb = rows[static_cast<size_t>(first)] / bq;
        while (end < n && rows[static_cast<size_t>(end)] / bq == qb)
            ++end;
        const Eigen::Index count = end - first;
        const std::vector<int64_t> blockRows(rows.begin() + first, rows.begin() + end);
        const Mat q = in.q(blockRows, Eigen::all);
        Eigen::VectorXd m = Eigen::VectorXd::Constant(count, minusInf), l = Eigen::VectorXd::Zero(count);
        Mat acc = Mat::Zero(count, d);
        for (int64_t kb = 0; kb < keyBlocks; ++kb) {
            const int64_t k0 = kb * bk, cols = std::min(bk, in.keyCount() - k0);
            if (tiles(qb, kb)) {
                Mat s = q * in.k.middleRows(k0, cols).transpose() * in.scale;
                if (in.bias.size()) s += in.bias(blockRows, Eigen::seqN(k0, cols)); // T5: the tile's position bias
                for (Eigen::Index i = 0; i < count; ++i) {
                    double top = m(i);
                    for (int64_t j = 0; j < cols; ++j)
                        if (keep(first + i, k0 + j)) top = std::max(top, s(i, j));
                    if (top == minusInf) continue; // no visible key yet in this row
                    // Rescale what was accumulated under the old max, then add this tile's share.
                    const double rescale = std::exp(m(i) - top);
                    l(i) *= rescale;
                    acc.row(i) *= rescale;
                    for (int64_t j = 0; j < cols; ++j)
                        if (keep(first + i, k0 + j)) {
                            const double p = std::exp(s(i, j) - top);
                            l(i) += p;
                            acc.row(i) += p * in.v.row(k0 + j);
                        }
                    m(i) = top;
                }
            }
            r.runningMax.block(kb, first, 1, count) = m.transpose();
            r.runningSum.block(kb, first, 1, count) = l.transpose();
        }
        for (Eigen::Index i = 0; i < count; ++i) {
            if (l(i) > 0.0) r.out.row(first + i) = acc.row(i) / l(i);
            r.lse(first + i) = l(i) > 0.0 ? m(i) + std::log(l(i)) : minusInf;
        }
    }
    r.io = attentionIo(T, d, bq, bk, [&](int64_t qb, int64_t kb) { return tiles(qb, kb) != 0; });
    r.tilesVisited = tiles.cast<int64_t>().sum();
    return r;
}

MechanismResult runFlashAttention(const HeadInputs& in, const MechanismSpec& spec)
{
    const int64_t T = in.tokens(), bq = spec.numbers[0], bk = spec.numbers[1];
    if (bq < 1 || bk < 1) throw Error("variant '" + spec.text + "': the block sizes BQ and BK must be at least 1");
    std::vector<int64_t> rows(static_cast<size_t>(T));
    std::iota(rows.begin(), rows.end(), int64_t { 0 });
    FlashRows f = flashAttentionRows(in, bq, bk, rows);
    MechanismResult r;
    r.out = std::move(f.out);
    // FlashAttention never stores P; as its backward pass does, P is recomputed from the saved log-sum-exp.
    const KeepMask keep = modelKeepMask(in);
    const Mat s = exactScores(in);
    r.probs = Mat::Zero(T, T);
    for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j < T; ++j)
            if (keep(i, j)) r.probs(i, j) = std::exp(s(i, j) - f.lse(i));
    r.numbers["bytes_moved"] = f.io.flash;
    r.numbers["bytes_moved_standard"] = f.io.standard;
    r.numbers["tiles_visited"] = static_cast<double>(f.tilesVisited);
    r.arrays.push_back({ "running_max", std::move(f.runningMax), {} });
    r.arrays.push_back({ "running_sum", std::move(f.runningSum), {} });
    r.notes["bytes"] = "float32 bytes in slow memory; standard = 4 (4 T d + 4 T^2) (read Q, K; write S; read S, write "
                       "P; read P, V; write O); flash = 4 (2 T d + T + 2 d * key rows of every visited tile)";
    r.notes["running"] = "running_max.npy / running_sum.npy [key blocks, T]: each row's m and l after key block b";
    return r;
}

} // namespace attn
