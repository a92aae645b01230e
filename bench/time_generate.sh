#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Times greedy generation of stories260K (256 steps, every step's attention captured) with attnscope-cli, and with a
# llama2.c `run` binary when LLAMA2C_RUN names one (built by you from karpathy/llama2.c run.c, not part of this repo).
# Each run's stdout must equal the stored run.c text, so a fast wrong answer cannot count.
# Prints per tool the median over RUNS of: run.c-style tok/s (wall, first step excluded), process wall, and process CPU
# time (perf stat task-clock when perf works, else user+sys from /usr/bin/time).
# Usage: bench/time_generate.sh path/to/attnscope-cli [RUNS]   (ATTNSCOPE_SHARED overrides ../shared)
set -euo pipefail

cli=${1:?usage: time_generate.sh path/to/attnscope-cli [RUNS]}
runs=${2:-11}
here=$(cd "$(dirname "$0")" && pwd)
shared=${ATTNSCOPE_SHARED:-$here/../../shared}
model=$shared/models/stories260K
expected=$model/expected_greedy_t0.0_n256.txt
[[ -f $expected ]] || { echo "missing $expected (set ATTNSCOPE_SHARED)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# time_tool NAME COMMAND...: RUNS timed runs, then one summary line.
time_tool() {
    local name=$1
    shift
    : >"$tmp/toks" && : >"$tmp/wall" && : >"$tmp/cpu"
    for ((i = 0; i < runs; i++)); do
        local t0 t1
        t0=$(date +%s.%N)
        if [[ -n $perf ]]; then # task-clock: CPU time in microseconds, /usr/bin/time only has 10 ms ticks
            perf stat -x, -e task-clock -o "$tmp/stat" "$@" >"$tmp/out" 2>"$tmp/err"
            awk -F, '/task-clock/ { print $1 / 1000 }' "$tmp/stat" >>"$tmp/cpu"
        else
            /usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err"
            awk '{ print $1 + $2 }' "$tmp/time" >>"$tmp/cpu"
        fi
        t1=$(date +%s.%N)
        awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >>"$tmp/wall"
        if ! cmp -s "$tmp/out" "$expected"; then
            echo "$name: output differs from $expected" >&2
            exit 1
        fi
        sed -n 's/^achieved tok\/s: //p' "$tmp/err" >>"$tmp/toks"
    done
    printf '%-14s runs=%d  tok/s(median)=%8.1f  wall(median)=%6.3f s  cpu(median)=%6.4f s\n' "$name" "$runs" \
        "$(median <"$tmp/toks")" "$(median <"$tmp/wall")" "$(median <"$tmp/cpu")"
}

perf=
if perf stat -e task-clock -o /dev/null true 2>/dev/null; then perf=1; fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
time_tool attnscope-cli "$cli" generate "$model/stories260K.bin" --tokenizer "$model/tok512.bin" --steps 256
if [[ -n ${LLAMA2C_RUN:-} ]]; then
    time_tool llama2.c-run "$LLAMA2C_RUN" "$model/stories260K.bin" -z "$model/tok512.bin" -t 0 -n 256
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
