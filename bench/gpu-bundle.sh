#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Packs what bench/gpu-check.sh --prebuilt needs on a machine that cannot build (a lent GPU machine with no Debian dev
# packages): the Vulkan test and benchmark binaries, the CLI, the shared libraries they load beyond the C/C++ runtime
# (OpenBLAS, sentencepiece, Google Benchmark, the Vulkan loader) and the ../shared data the Vulkan tests read.
#   bench/gpu-bundle.sh [BUILD_DIR]    -> build/gpu-bundle.tar.xz (BUILD_DIR default build/gpu-bundle-build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build/gpu-bundle-build}
SHARED=${ATTNSCOPE_SHARED:-../shared}
OUT=build/gpu-bundle
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DAS_BUILD_GUI=OFF -DAS_BUILD_BENCH=ON \
    -DAS_ENABLE_VULKAN=ON >/dev/null
cmake --build "$BUILD" --target vulkan_tests attnscope-cli bench_attention_kernels bench_forward
rm -rf "$OUT" && mkdir -p "$OUT/bin" "$OUT/lib" "$OUT/shared/models"
bins=("$BUILD/tests/vulkan_tests" "$BUILD/app/attnscope-cli" "$BUILD/bench/bench_attention_kernels"
    "$BUILD/bench/bench_forward")
cp "${bins[@]}" "$OUT/bin/"
# Every library the binaries load except the C/C++ runtime, which the target's own (newer) one provides.
ldd "${bins[@]}" | awk '$3 ~ /^\// { print $3 }' | sort -u \
    | grep -Ev '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt)\.so' | while read -r lib; do
        cp -L "$lib" "$OUT/lib/"
    done
cp -r "$SHARED/fixtures" "$SHARED/tools" "$OUT/shared/"
cp -r "$SHARED/models/stories260K" "$OUT/shared/models/"
tar -C build -cJf build/gpu-bundle.tar.xz gpu-bundle
ls -la build/gpu-bundle.tar.xz
