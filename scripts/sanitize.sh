#!/usr/bin/env bash
# ASan + UBSan: builds the `asan` preset (GCC, -O1 with assertions, no GUI or Vulkan) and runs its whole ctest suite
# in two jobs: the engine tests, the CLI tests (fixtures, tokenizers, GGUF, hostile inputs) and the fuzz regressions.
# The asan test preset sets halt_on_error (and the build -fno-sanitize-recover=all), so the first finding fails its
# test, and widens the hostile inputs' RSS and time bounds for ASan's quarantine and slower code. The README's test
# command (CI) ends with this script; the GUI tests are not built here (Qt under ASan would double the build).
#   usage: scripts/sanitize.sh [CTEST ARGS...]      e.g. scripts/sanitize.sh -R 'hostile|Safetensors'
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
# Only on a fresh build tree: adding a launcher to an existing one would rebuild all of it.
if [ ! -f build/asan/CMakeCache.txt ] && command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
start=$SECONDS
cmake --preset asan "${launcher[@]}" >/dev/null
cmake --build --preset asan
built=$SECONDS
status=0
ctest --preset asan "$@" || status=$?
echo "sanitize.sh: build $((built - start)) s, tests $((SECONDS - built)) s"
exit $status
