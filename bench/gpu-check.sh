#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One-shot check on a machine with a real GPU (no internet needed): build what the machine allows, run the Vulkan
# parity tests (a missing device FAILS here), the kernel benchmarks (one table) and the whole-forward benchmark
# (prefill and decode step, CPU vs Vulkan, with a full-scale parity check). Budget: < 10 minutes.
#   bench/gpu-check.sh [BUILD_DIR]     (default build/gpu-check; OUT=$OUT or BUILD_DIR gets the logs and JSON)
#   bench/gpu-check.sh --prebuilt build/gpu-bundle.tar.xz
#       on a machine that cannot build (no Debian dev packages): runs what bench/gpu-bundle.sh packed elsewhere.
set -uo pipefail
cd "$(dirname "$0")/.."
prebuilt=
if [ "${1:-}" = --prebuilt ]; then
    prebuilt=${2:?"--prebuilt needs the bundle (bench/gpu-bundle.sh makes build/gpu-bundle.tar.xz)"}
    BUILD=build/gpu-check-prebuilt
else
    BUILD=${1:-build/gpu-check}
fi
LOGS=${OUT:-$BUILD}
mkdir -p "$LOGS"
JOBS=$(nproc 2>/dev/null || echo 4)
start=$(date +%s)
say() { printf '== %s (%ds)\n' "$*" $(($(date +%s) - start)); }

if [ -n "$prebuilt" ]; then
    # --- a bundle from bench/gpu-bundle.sh ------------------------------------------------------------------------
    say "unpack $prebuilt"
    rm -rf "$BUILD" && mkdir -p "$BUILD"
    if [ -d "$prebuilt" ]; then cp -r "$prebuilt"/. "$BUILD/"; else tar -C "$BUILD" --strip-components=1 -xJf "$prebuilt"; fi
    export LD_LIBRARY_PATH="$PWD/$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export ATTNSCOPE_SHARED="$PWD/$BUILD/shared" ATTNSCOPE_CLI="$PWD/$BUILD/bin/attnscope-cli"
    # ../shared/tools need numpy: the first Python that has it.
    for py in /usr/bin/python3 "$(command -v python3 2>/dev/null)"; do
        [ -x "$py" ] && "$py" -c 'import numpy' 2>/dev/null && { export ATTNSCOPE_PYTHON=$py; break; }
    done
    # NVIDIA's container toolkit puts its ICD json outside the loader's search path.
    nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] && [ -f $nvidia_icd ] && export VK_DRIVER_FILES=$nvidia_icd
    TESTS=$BUILD/bin/vulkan_tests CLI=$BUILD/bin/attnscope-cli
    KBENCH=$BUILD/bin/bench_attention_kernels FBENCH=$BUILD/bin/bench_forward
    bench=ON
    command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
else
    # --- what the machine has -------------------------------------------------------------------------------------
    missing=()
    for tool in cmake c++ glslc; do command -v "$tool" >/dev/null || missing+=("$tool (command)"); done
    [ -f /usr/include/vulkan/vulkan.h ] || missing+=("vulkan.h (libvulkan-dev)")
    # (grep without -q: with pipefail, an early exit would fail the pipeline through ldconfig's SIGPIPE)
    ldconfig -p 2>/dev/null | grep 'libvulkan.so.1' >/dev/null || missing+=("libvulkan.so.1 (libvulkan1)")
    [ -d /usr/include/eigen3 ] || missing+=("Eigen (libeigen3-dev)")
    [ -f /usr/include/x86_64-linux-gnu/openblas-pthread/cblas.h ] || missing+=("OpenBLAS (libopenblas-pthread-dev)")
    [ -f /usr/include/nlohmann/json.hpp ] || missing+=("nlohmann/json.hpp (nlohmann-json3-dev)")
    pkg-config --exists sentencepiece 2>/dev/null || missing+=("sentencepiece (libsentencepiece-dev)")
    [ -f /usr/include/gtest/gtest.h ] || missing+=("GoogleTest (libgtest-dev)")
    bench=ON
    [ -f /usr/include/benchmark/benchmark.h ] || { bench=OFF; echo "note: no libbenchmark-dev: benchmarks skipped"; }
    # The driver's ICD json may also come through VK_DRIVER_FILES / VK_ICD_FILENAMES; a missing device fails below anyway.
    compgen -G '/usr/share/vulkan/icd.d/*.json' >/dev/null || compgen -G '/etc/vulkan/icd.d/*.json' >/dev/null \
        || [ -n "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] || echo "note: no Vulkan ICD json in the usual places"
    ls /usr/share/vulkan/icd.d/ /etc/vulkan/icd.d/ 2>/dev/null | grep json | tr '\n' ' '; echo
    command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    if [ ${#missing[@]} -gt 0 ]; then
        echo "MISSING (cannot build the Vulkan checks):"
        printf '  - %s\n' "${missing[@]}"
        exit 2
    fi
    gen=()
    command -v ninja >/dev/null && gen=(-G Ninja)

    # --- build ---------------------------------------------------------------------------------------------------
    say configure
    cmake -S . -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DAS_BUILD_GUI=OFF -DAS_BUILD_BENCH=$bench \
        -DAS_ENABLE_VULKAN=ON >"$LOGS/configure.log" 2>&1 || { tail -30 "$LOGS/configure.log"; exit 1; }
    grep -q 'AS_ENABLE_VULKAN:BOOL=ON' "$BUILD/CMakeCache.txt" || { echo "Vulkan got disabled at configure:"; grep -i vulkan "$LOGS/configure.log"; exit 1; }
    say build
    targets=(vulkan_tests attnscope-cli)
    [ $bench = ON ] && targets+=(bench_attention_kernels bench_forward)
    timeout 360 cmake --build "$BUILD" -j"$JOBS" --target "${targets[@]}" >"$LOGS/build.log" 2>&1 \
        || { grep -E 'error|Error' "$LOGS/build.log" | head -30; exit 1; }
    TESTS=$BUILD/tests/vulkan_tests CLI=$BUILD/app/attnscope-cli
    KBENCH=$BUILD/bench/bench_attention_kernels FBENCH=$BUILD/bench/bench_forward
fi
validate=1 filter=()
if ! compgen -G '/usr/share/vulkan/explicit_layer.d/*validation*.json' >/dev/null; then
    echo "note: no vulkan-validationlayers: tests run WITHOUT the validation layer (ValidationFires left out)"
    validate=0 filter=('--gtest_filter=-ValidationFires.*')
fi

# --- devices and parity -----------------------------------------------------------------------------------------------
say devices
"$CLI" info --devices --backend vulkan | tee "$LOGS/devices.json"
say "parity tests (CI=1: a missing device fails)"
CI=1 AS_VULKAN_VALIDATE=$validate timeout 240 "$TESTS" --gtest_brief=1 "${filter[@]}" >"$LOGS/tests.log" 2>&1
tests_rc=$?
tail -5 "$LOGS/tests.log"
grep -E '^\[  (PASSED|FAILED) ' "$LOGS/tests.log"

# --- benchmarks -----------------------------------------------------------------------------------------------------
if [ $bench = ON ]; then
    say benchmarks
    timeout 150 "$KBENCH" --benchmark_min_time=0.2 \
        --benchmark_out="$LOGS/bench.json" --benchmark_out_format=json >"$LOGS/bench.log" 2>&1 \
        || echo "benchmarks stopped early (rc $?): partial results below"
    python3 - "$LOGS/bench.json" <<'PY' 2>/dev/null || grep -E '^BM_' "$LOGS/bench.log"
import json, sys
rows = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    parts = dict(p.split(":") for p in b["name"].split("/")[1:] if ":" in p)
    key = (b["name"].split("/")[0][3:], int(parts["tokens"]))
    rows.setdefault(key, {})["vulkan" if parts["vulkan"] == "1" else "cpu"] = b
print(f"{'op':24} {'tokens':>6} | {'cpu ms':>9} {'GFLOP/s':>8} | {'vulkan ms':>9} {'GFLOP/s':>8} {'GB/s':>7} | speedup")
for (op, n), r in sorted(rows.items()):
    c, v = r.get("cpu"), r.get("vulkan")
    f = lambda b, k: f"{b[k]:.2f}" if b and k in b else "-"
    sp = f"{c['real_time'] / v['real_time']:.1f}x" if c and v else "-"
    print(f"{op:24} {n:>6} | {f(c,'real_time'):>9} {f(c,'GFLOP/s'):>8} | {f(v,'real_time'):>9} {f(v,'GFLOP/s'):>8} {f(v,'GB/s'):>7} | {sp}")
PY
    say "whole forward on the resident stream: GPT-2-small shape, 512-token prefill and one decode step, CPU vs Vulkan"
    timeout 120 "$FBENCH" --benchmark_out="$LOGS/forward.json" --benchmark_out_format=json \
        >"$LOGS/forward.log" 2>&1 || echo "forward benchmark stopped early (rc $?): partial results below"
    grep -E '^(prefill|decodeStep)' "$LOGS/forward.log"
fi
say done
exit $tests_rc
