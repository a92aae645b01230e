// SPDX-License-Identifier: MIT
#include "mechanisms/sampled_rows.h"

#include "mechanisms/attention_math.h"

#include <algorithm>

namespace attn {

std::vector<int64_t> sweepQueryRows(int64_t tokens, int64_t limit)
{
    std::vector<int64_t> rows;
    const int64_t count = std::min(tokens, std::max<int64_t>(limit, 2));
    for (int64_t i = 0; i < count; ++i)
        rows.push_back(count == tokens ? i : i * (tokens - 1) / (count - 1));
    return rows;
}

ScoreRows exactScoreRows(const HeadInputs& in, const std::vector<int64_t>& rows)
{
    ScoreRows r;
    r.rows = rows;
    const Mat q = in.q(rows, Eigen::all);
    if (in.learned.kind != LearnedScoreKind::None) {
        r.scores = learnedScores(in.learned, q, in.k);
    } else {
        r.scores = q * in.k.transpose() * in.scale;
        if (in.bias.size()) r.scores += in.bias(rows, Eigen::all);
    }
    r.keep = modelKeepMask(in, rows);
    return r;
}

Mat exactProbabilityRows(const HeadInputs& in, const std::vector<int64_t>& rows)
{
    const ScoreRows s = exactScoreRows(in, rows);
    return maskedSoftmax(s.scores, s.keep);
}

} // namespace attn
