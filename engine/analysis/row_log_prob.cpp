// SPDX-License-Identifier: MIT
#include "analysis/row_log_prob.h"

#include <algorithm>
#include <cmath>

namespace attn {

double rowLogProb(const float* row, int64_t n, int64_t column)
{
    const double top = *std::max_element(row, row + n);
    double sum = 0.0;
    for (int64_t j = 0; j < n; ++j)
        sum += std::exp(static_cast<double>(row[j]) - top);
    return static_cast<double>(row[column]) - top - std::log(sum);
}

} // namespace attn
