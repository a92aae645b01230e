#!/usr/bin/env bash
# ASan + UBSan: builds the `asan` preset (GCC, -O1 with assertions, no GUI or Vulkan) and runs its ctest suite: the
# engine tests, the CLI tests (fixtures, hostile inputs) and the fuzz regressions. The asan test preset sets
# halt_on_error (and UBSan's -fno-sanitize-recover), so the first finding fails its test.
#   usage: scripts/sanitize.sh [CTEST ARGS...]      e.g. scripts/sanitize.sh -R 'hostile|Safetensors'
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
start=$SECONDS
cmake --preset asan "${launcher[@]}" >/dev/null
cmake --build --preset asan
built=$SECONDS
status=0
ctest --preset asan "$@" || status=$?
echo "sanitize.sh: build $((built - start)) s, tests $((SECONDS - built)) s"
exit $status
