#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# AttnScope against its fairest peers, side by side in one run, alternating (the machine is shared: every round runs
# each tool once, in a rotated order, so a change of load falls on all of them alike). See bench/README.md.
#
#  decode:  stories260K greedy, STEPS positions, whole process: attnscope-cli generate (the default --backend auto,
#           and --backend cpu) against llama2.c run.c built here three ways: -O3, -Ofast (llama2.c's `make runfast`)
#           and -Ofast -march=native. Every run's text must equal run.c -O3's (and each run.c build's 256-step text
#           the stored run.c output), so a fast wrong answer cannot count.
#  forward: GPT-2-small shape (random weights), TOKENS-token prefill with every attention probability returned:
#           bench_forward's prefill/Capture against bench/pytorch_gpt2_eager.py, each at 1 and 2 threads (OpenBLAS's
#           threads, and torch's own). Both sides use the same OpenBLAS core (bench/openblas_core.sh).
#  views:   the same comparison with the engine running the input as the GUI does for its attention views
#           (bench_forward's views: last logits only, all attention kept up to 256 MB, else derived from the queries
#           and keys with every head's statistics from the forward); torch still returns every probability.
#
# Per tool: median and min-max over ROUNDS of wall time and CPU time (both cores counted: decode, the whole process by
# perf stat task-clock, with the tok/s the tool prints, run.c's rule: wall, first step excluded; forward, the forward
# alone as each side times it); the load average before and after.
# Usage: LLAMA2C_SRC=/path/to/llama2.c/run.c bench/peers.sh [BUILD_DIR] [ROUNDS] [decode|forward|views|all]
#        STEPS (512), TOKENS ("512 2048"); without LLAMA2C_SRC the decode part runs attnscope-cli alone;
#        BASELINE_CLI=path/to/another/attnscope-cli adds it to the decode rounds as cli-baseline (a before/after);
#        RUNC_CFLAGS is added to each run.c build (-mno-avx512f: an AVX2-only CPU's code, with ATTNSCOPE_MAX_ISA=avx2).
set -euo pipefail
build=${1:-build/ci}
rounds=${2:-5}
part=${3:-all}
steps=${STEPS:-512}
tokens=${TOKENS:-512 2048}
here=$(cd "$(dirname "$0")" && pwd)
shared=${ATTNSCOPE_SHARED:-$here/../../shared}
model=$shared/models/stories260K
[[ -f $model/expected_greedy_t0.0_n256.txt ]] || { echo "missing $model (set ATTNSCOPE_SHARED)" >&2; exit 1; }
. "$here/openblas_core.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
perf stat -e task-clock -o /dev/null true 2>/dev/null || { echo "perf stat is needed for CPU times" >&2; exit 1; }

load() { cut -d' ' -f1-3 /proc/loadavg; }
# stats FILE: "median (min-max)" of the numbers in FILE, one a line.
stats() {
    sort -g "$1" | awk '{ v[NR] = $1 } END {
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.4g (%.4g-%.4g)", m, v[1], v[NR] }'
}
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# timed NAME COMMAND...: one run; appends wall and CPU seconds to $tmp/NAME.{wall,cpu}, stdout to $tmp/NAME.out.
timed() {
    local name=$1 t0 t1
    shift
    t0=$(date +%s.%N)
    perf stat -x, -e task-clock -o "$tmp/stat" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >>"$tmp/$name.wall"
    awk -F, '/task-clock/ { print $1 / 1000 }' "$tmp/stat" >>"$tmp/$name.cpu"
}
# rotate N WORDS...: WORDS rotated left by N.
rotate() {
    local n=$1
    shift
    local a=("$@")
    n=$((n % ${#a[@]}))
    echo "${a[@]:n}" "${a[@]:0:n}"
}

echo "CPU: $cpu_name; OpenBLAS core $OPENBLAS_CORETYPE for every tool${ATTNSCOPE_MAX_ISA:+, engine kernels capped at $ATTNSCOPE_MAX_ISA}; $(date -u '+%F %H:%M UTC')"

decode() {
    local cli=$build/app/attnscope-cli names=(cli-auto cli-cpu) ref=
    declare -A cmd=(
        [cli-auto]="$cli generate $model/stories260K.bin --tokenizer $model/tok512.bin --steps $steps"
        [cli-cpu]="$cli generate $model/stories260K.bin --tokenizer $model/tok512.bin --steps $steps --backend cpu")
    if [[ -n ${BASELINE_CLI:-} ]]; then
        cmd[cli-baseline]="$BASELINE_CLI generate $model/stories260K.bin --tokenizer $model/tok512.bin --steps $steps"
        names+=(cli-baseline)
    fi
    if [[ -n ${LLAMA2C_SRC:-} ]]; then
        local flags name
        for flags in "-O3" "-Ofast" "-Ofast -march=native"; do
            name=run.c${flags// /}
            gcc $flags ${RUNC_CFLAGS:-} -o "$tmp/$name" "$LLAMA2C_SRC" -lm
            "$tmp/$name" "$model/stories260K.bin" -z "$model/tok512.bin" -t 0 -n 256 2>/dev/null >"$tmp/check"
            cmp -s "$tmp/check" "$model/expected_greedy_t0.0_n256.txt" \
                || { echo "$name: 256-step text differs from the stored run.c output" >&2; exit 1; }
            cmd[$name]="$tmp/$name $model/stories260K.bin -z $model/tok512.bin -t 0 -n $steps"
            names+=("$name")
        done
        ref=run.c-O3
        echo "run.c: $LLAMA2C_SRC (sha256 $(sha256sum "$LLAMA2C_SRC" | cut -c1-16)), $(gcc --version | head -1)${RUNC_CFLAGS:+, each build with $RUNC_CFLAGS}"
    fi
    echo "decode: stories260K greedy, $steps positions, $rounds rounds; load before: $(load)"
    for ((r = 0; r < rounds; r++)); do
        for name in $(rotate "$r" "${names[@]}"); do
            timed "$name" ${cmd[$name]}
            sed -n 's/^achieved tok\/s: //p' "$tmp/$name.err" >>"$tmp/$name.toks"
            ref=${ref:-$name}
            [[ ! -f $tmp/$ref.out ]] || cmp -s "$tmp/$name.out" "$tmp/$ref.out" \
                || { echo "$name: text differs from $ref's" >&2; exit 1; }
        done
    done
    echo "load after: $(load); every text equal to $ref's"
    echo "| tool | wall s | CPU s | tok/s (as printed) |"
    echo "|---|---:|---:|---:|"
    for name in "${names[@]}"; do
        echo "| $name | $(stats "$tmp/$name.wall") | $(stats "$tmp/$name.cpu") | $(stats "$tmp/$name.toks") |"
    done
    if [[ -n ${LLAMA2C_SRC:-} ]]; then
        echo "ratios of medians, attnscope-cli (auto / cpu) over each run.c (wall, CPU; tok/s the other way round):"
        for name in "${names[@]:2}"; do
            awk -v n="$name" -v aw="$(median "$tmp/cli-auto.wall")" -v cw="$(median "$tmp/cli-cpu.wall")" \
                -v rw="$(median "$tmp/$name.wall")" -v ac="$(median "$tmp/cli-auto.cpu")" \
                -v cc="$(median "$tmp/cli-cpu.cpu")" -v rc="$(median "$tmp/$name.cpu")" \
                -v at="$(median "$tmp/cli-auto.toks")" -v ct="$(median "$tmp/cli-cpu.toks")" \
                -v rt="$(median "$tmp/$name.toks")" 'BEGIN {
                    printf "  vs %-20s wall %.2f / %.2f  CPU %.2f / %.2f  tok/s %.2f / %.2f\n", n, aw / rw, cw / rw,
                        ac / rc, cc / rc, at / rt, ct / rt }'
        done
    fi
}

forward() {
    local n name threads bench=${1:-prefill/Capture}
    for n in $tokens; do
        local names=(attnscope-1t attnscope-2t torch-1t torch-2t)
        rm -f "$tmp"/*.wall "$tmp"/*.cpu
        echo "forward: GPT-2-small shape, $n tokens, all 144 attention matrices available ($bench), $rounds rounds; load before: $(load)"
        for ((r = 0; r < rounds; r++)); do
            for name in $(rotate "$r" "${names[@]}"); do
                threads=${name#*-}
                threads=${threads%t}
                if [[ $name == attnscope-* ]]; then
                    # Per forward (mean of the benchmark's 2 iterations), after the model is written and loaded.
                    OPENBLAS_NUM_THREADS=$threads "$build/bench/bench_forward" --benchmark_format=csv \
                        --benchmark_filter="$bench/vulkan:0/tokens:$n/" >"$tmp/out" 2>"$tmp/err"
                    grep -q "openblas_core.*$OPENBLAS_CORETYPE" "$tmp/err" \
                        || { echo "bench_forward did not run on $OPENBLAS_CORETYPE: $(cat "$tmp/err")" >&2; exit 1; }
                    grep -m1 "^\"$bench" "$tmp/out" | awk -F, '{ print $3 / 1000 >> "'"$tmp/$name.wall"'"
                        print $4 / 1000 >> "'"$tmp/$name.cpu"'" }'
                else
                    OPENBLAS_NUM_THREADS=$threads /usr/bin/python3 "$here/pytorch_gpt2_eager.py" --threads "$threads" \
                        --tokens "$n" --runs 1 >"$tmp/out"
                    grep -q "OpenBLAS $OPENBLAS_CORETYPE x$threads" "$tmp/out" \
                        || { echo "torch did not run on $OPENBLAS_CORETYPE x$threads: $(cat "$tmp/out")" >&2; exit 1; }
                    sed -n 's/.*wall median \([0-9.]*\) s.*/\1/p' "$tmp/out" >>"$tmp/$name.wall"
                    sed -n 's/.*cpu median \([0-9.]*\) s.*/\1/p' "$tmp/out" >>"$tmp/$name.cpu"
                fi
            done
        done
        echo "load after: $(load)"
        echo "| tool | forward wall s | forward CPU s (all threads) |"
        echo "|---|---:|---:|"
        for name in "${names[@]}"; do
            echo "| $name | $(stats "$tmp/$name.wall") | $(stats "$tmp/$name.cpu") |"
        done
        awk -v a1="$(median "$tmp/attnscope-1t.wall")" -v a2="$(median "$tmp/attnscope-2t.wall")" \
            -v t1="$(median "$tmp/torch-1t.wall")" -v t2="$(median "$tmp/torch-2t.wall")" 'BEGIN {
                a = a1 < a2 ? a1 : a2
                t = t1 < t2 ? t1 : t2
                printf "best attnscope / best torch (median forward wall): %.2f\n", a / t }'
    done
}

[[ $part == decode || $part == all ]] && decode
[[ $part == forward || $part == all ]] && forward
[[ $part == views || $part == all ]] && forward views
exit 0
