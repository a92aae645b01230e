#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CPU attention kernels against this machine's practical sgemm peak, measured in the same run: numpy's sgemm at
# 2048^3 with the OpenBLAS kernels the engine itself uses (OPENBLAS_CORETYPE set to what the engine chose), then
# bench_attention_kernels' CPU rows, then the peak again (the machine is shared: the two peaks bracket the load).
# Prints each kernel's GFLOP/s and GB/s and its fraction of the mean peak. See bench/README.md.
# Usage: bench/kernel_roofline.sh [BUILD_DIR] [FILTER]   (FILTER: a --benchmark_filter regex, CPU rows by default)
set -euo pipefail
build=${1:-build/ci}
filter=${2:-'BM_Attention.*/vulkan:0/'}
. "$(dirname "$0")/openblas_core.sh"
core=$OPENBLAS_CORETYPE
peak() {
    /usr/bin/python3 -c '
import numpy as np, time
n = 2048
a = np.random.rand(n, n).astype(np.float32); b = np.random.rand(n, n).astype(np.float32)
a @ b
best = min((lambda t: (a @ b, time.perf_counter() - t)[1])(time.perf_counter()) for _ in range(5))
print(f"{2 * n**3 / best / 1e9:.1f}")'
}
echo "CPU: $cpu_name; OpenBLAS core $core"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
p0=$(peak)
rows=$("$build/bench/bench_attention_kernels" --benchmark_filter="$filter" --benchmark_format=csv 2>/dev/null | grep '^"BM_')
p1=$(peak)
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); sgemm 2048^3 peak: $p0 then $p1 GFLOP/s"
echo "| kernel | ms | GFLOP/s | GB/s | of peak |"
echo "|---|---:|---:|---:|---:|"
echo "$rows" | awk -F, -v p0="$p0" -v p1="$p1" '{
    # csv: name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,error_message,GB/s,GFLOP/s
    gsub(/"/, "", $1)
    printf "| %s | %.1f | %.1f | %.1f | %.0f %% |\n", $1, $3, $(NF), $(NF - 1), 100 * $(NF) / ((p0 + p1) / 2)
}'
