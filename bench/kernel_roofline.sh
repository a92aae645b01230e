#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CPU attention kernels against this machine's practical sgemm peak, measured in the same run: numpy's sgemm at
# 2048^3 with the OpenBLAS kernels the engine itself uses (OPENBLAS_CORETYPE set to what the engine chose), then
# bench_attention_kernels' CPU rows, then the peak again (the machine is shared: the two peaks bracket the load).
# Prints each kernel's GFLOP/s and GB/s and its fraction of the mean peak, by wall time and by CPU time (all threads:
# FLOP per CPU-second of the kernel against numpy's; on a loaded machine the wall figures measure the load as much as
# the code, the CPU ones much less so). See bench/README.md.
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
def timed():
    w, c = time.perf_counter(), time.process_time()
    a @ b
    return time.perf_counter() - w, time.process_time() - c
runs = [timed() for _ in range(5)]
print(f"{2 * n**3 / min(w for w, _ in runs) / 1e9:.1f} {2 * n**3 / min(c for _, c in runs) / 1e9:.1f}")'
}
echo "CPU: $cpu_name; OpenBLAS core $core"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
read -r p0 c0 <<<"$(peak)"
rows=$("$build/bench/bench_attention_kernels" --benchmark_filter="$filter" --benchmark_format=csv 2>/dev/null | grep '^"BM_')
read -r p1 c1 <<<"$(peak)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); sgemm 2048^3 peak: $p0 then $p1 GFLOP/s (per CPU-second: $c0 then $c1)"
echo "| kernel | ms | CPU ms | GFLOP/s | GB/s | of peak | GFLOP per CPU-s | of CPU peak |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
echo "$rows" | awk -F, -v p0="$p0" -v p1="$p1" -v c0="$c0" -v c1="$c1" '{
    # csv: name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,error_message,GB/s,GFLOP/s
    # (cpu_time counts every thread of the process: the benchmarks measure process CPU time)
    gsub(/"/, "", $1)
    perCpu = $(NF) * $3 / $4
    printf "| %s | %.1f | %.1f | %.1f | %.1f | %.0f %% | %.1f | %.0f %% |\n", $1, $3, $4, $(NF), $(NF - 1),
        100 * $(NF) / ((p0 + p1) / 2), perCpu, 100 * perCpu / ((c0 + c1) / 2)
}'
