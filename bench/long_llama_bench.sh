#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# 16k and 32k tokens on a smaller Llama-shaped model (8 layers, 8 heads, width 512, random weights, the genuine GPT-2
# vocabulary, 32,832 positions): wall time and peak RSS of `attnscope-cli attention` (one head's last 96 rows) and of
# the main window (bench_long_views_ui: forward, first head drawn, every head summarized, head switches). Not a timed
# test; results go in bench/README.md.
#
# usage: bench/long_llama_bench.sh [BUILD_DIR] [TOKENS...]     (defaults: build/ci, 16384 32768)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build/ci}
shift || true
sizes=${*:-16384 32768}
work=${OUT:-/tmp/attnscope-long-llama-bench}
model=$work/llama-8x8x512-32k
mkdir -p "$work"
if [ ! -f "$model/model.safetensors" ]; then
  /usr/bin/python3 "$here/make_long_context_model.py" "$model" --family llama --layers 8 --heads 8 --width 512 \
    --positions 32832
fi
for n in $sizes; do
  text=$work/text-$n.txt
  if [ ! -f "$text" ]; then
    /usr/bin/python3 "$here/make_long_context_model.py" "$work/text-only" --layers 1 --heads 1 --width 8 \
      --positions 8 --text-tokens "$n" --text-file "$text" > /dev/null
    rm -rf "$work/text-only"
  fi
  /usr/bin/time -f "%e s wall, %M KiB peak RSS" "$build/app/attnscope-cli" attention "$model" --prompt-file "$text" \
    --backend cpu --layers 0 --heads 3 --rows $((n - 96)):$n --out "$work/cli-rows" > "$work/cli-$n.txt" 2>&1
  echo "cli $n tokens, L0 H3 last 96 rows: $(tail -1 "$work/cli-$n.txt")"
  echo "gui $n tokens:"
  QT_QPA_PLATFORM=offscreen /usr/bin/time -f "  %e s wall, %M KiB peak RSS" "$build/bench/bench_long_views_ui" \
    "$model" "$text" --switches 3 2>&1 | sed 's/^/  /'
done
