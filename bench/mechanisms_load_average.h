// SPDX-License-Identifier: MIT
#pragma once
// The machine's load average as the Mechanisms benches print it beside their timings (bench/README.md asks for the
// load with every speed figure).
#include <fstream>
#include <string>

namespace attn::bench {

/// "1-min 5-min 15-min" from /proc/loadavg.
inline std::string loadAverage()
{
    std::ifstream f("/proc/loadavg");
    std::string one, five, fifteen;
    f >> one >> five >> fifteen;
    return one + " " + five + " " + fifteen;
}

} // namespace attn::bench
