// SPDX-License-Identifier: MIT
#include "mechanisms/flash_attention.h"

#include "core/error.h"
#include "mechanisms/attention_math.h"
#include "mechanisms/mechanism.h"

#include <cmath>
#include <limits>

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

MechanismResult runFlashAttention(const HeadInputs& in, const MechanismSpec& spec)
{
    const int64_t T = in.tokens(), bq = spec.numbers[0], bk = spec.numbers[1];
    if (bq < 1 || bk < 1) throw Error("variant '" + spec.text + "': the block sizes BQ and BK must be at least 1");
    constexpr double minusInf = -std::numeric_limits<double>::infinity();
    const KeepMask keep = modelKeepMask(in);
    const int64_t keyBlocks = (T + bk - 1) / bk;
    auto visited = [&](int64_t qb, int64_t kb) {
        const int64_t q0 = qb * bq, k0 = kb * bk;
        return keep.block(q0, k0, std::min(bq, T - q0), std::min(bk, T - k0)).any();
    };
    // The running max m and sum l of every row after each key block (a skipped tile leaves them as they were).
    Mat runningMax(keyBlocks, T), runningSum(keyBlocks, T);
    Eigen::VectorXd lse(T);
    MechanismResult r;
    r.out = Mat::Zero(T, in.dim());
    for (int64_t q0 = 0; q0 < T; q0 += bq) {
        const int64_t rows = std::min(bq, T - q0);
        Eigen::VectorXd m = Eigen::VectorXd::Constant(rows, minusInf), l = Eigen::VectorXd::Zero(rows);
        Mat acc = Mat::Zero(rows, in.dim());
        for (int64_t kb = 0; kb < keyBlocks; ++kb) {
            const int64_t k0 = kb * bk, cols = std::min(bk, T - k0);
            if (visited(q0 / bq, kb)) {
                Mat s = in.q.middleRows(q0, rows) * in.k.middleRows(k0, cols).transpose() * in.scale;
                if (in.bias.size()) s += in.bias.block(q0, k0, rows, cols); // T5: the tile's position bias
                for (int64_t i = 0; i < rows; ++i) {
                    double top = m(i);
                    for (int64_t j = 0; j < cols; ++j)
                        if (keep(q0 + i, k0 + j)) top = std::max(top, s(i, j));
                    if (top == minusInf) continue; // no visible key yet in this row
                    // Rescale what was accumulated under the old max, then add this tile's share.
                    const double rescale = std::exp(m(i) - top);
                    l(i) *= rescale;
                    acc.row(i) *= rescale;
                    for (int64_t j = 0; j < cols; ++j)
                        if (keep(q0 + i, k0 + j)) {
                            const double p = std::exp(s(i, j) - top);
                            l(i) += p;
                            acc.row(i) += p * in.v.row(k0 + j);
                        }
                    m(i) = top;
                }
            }
            runningMax.block(kb, q0, 1, rows) = m.transpose();
            runningSum.block(kb, q0, 1, rows) = l.transpose();
        }
        for (int64_t i = 0; i < rows; ++i) {
            if (l(i) > 0.0) r.out.row(q0 + i) = acc.row(i) / l(i);
            lse(q0 + i) = l(i) > 0.0 ? m(i) + std::log(l(i)) : minusInf;
        }
    }
    // FlashAttention never stores P; as its backward pass does, P is recomputed from the saved log-sum-exp.
    const Mat s = exactScores(in);
    r.probs = Mat::Zero(T, T);
    for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j < T; ++j)
            if (keep(i, j)) r.probs(i, j) = std::exp(s(i, j) - lse(i));
    const AttentionIo io = attentionIo(T, in.dim(), bq, bk, visited);
    r.numbers["bytes_moved"] = io.flash;
    r.numbers["bytes_moved_standard"] = io.standard;
    r.numbers["tiles_visited"] = 0;
    for (int64_t qb = 0; qb * bq < T; ++qb)
        for (int64_t kb = 0; kb < keyBlocks; ++kb)
            r.numbers["tiles_visited"] += visited(qb, kb);
    r.arrays.push_back({ "running_max", runningMax, {} });
    r.arrays.push_back({ "running_sum", runningSum, {} });
    r.notes["bytes"] = "float32 bytes in slow memory; standard = 4 (4 T d + 4 T^2) (read Q, K; write S; read S, write "
                       "P; read P, V; write O); flash = 4 (2 T d + T + 2 d * key rows of every visited tile)";
    r.notes["running"] = "running_max.npy / running_sum.npy [key blocks, T]: each row's m and l after key block b";
    return r;
}

} // namespace attn
