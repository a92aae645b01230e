// SPDX-License-Identifier: MIT
#include "mechanisms/approximation_sweep.h"

#include "mechanisms/mechanism_report.h"

#include <cmath>

namespace attn {

std::vector<SweepPoint> approximationSweep(const HeadInputs& inputs, const std::string& family,
    const std::vector<int64_t>& sizes, int seeds, const std::function<void()>& checkpoint)
{
    std::vector<SweepPoint> points;
    for (int64_t size : sizes) {
        double sum = 0.0, sumSq = 0.0;
        for (int s = 0; s < seeds; ++s) {
            if (checkpoint) checkpoint();
            const MechanismSpec spec = parseMechanism(family + ":" + std::to_string(size) + ":" + std::to_string(s));
            const double e = analyzeMechanism(inputs, spec).metrics.outRelErr;
            sum += e;
            sumSq += e * e;
        }
        const double mean = sum / seeds;
        points.push_back({ size, mean, std::sqrt(std::max(0.0, sumSq / seeds - mean * mean)) });
    }
    return points;
}

} // namespace attn
