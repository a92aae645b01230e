#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Long inputs end to end: peak RSS and time of `attnscope-cli attention` (one head's last rows, and one whole layer)
# and of the GUI (`--input-file`, time until the first view is on screen) on a random-weight GPT-2-small-shaped model
# with 8,192 positions and the genuine GPT-2 vocabulary. Not a timed test; results go in bench/README.md.
#
# usage: bench/long_input_bench.sh [BUILD_DIR] [TOKENS...]     (defaults: build/ci, 2048 4096)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build/ci}
shift || true
sizes=${*:-2048 4096}
work=${OUT:-/tmp/attnscope-long-bench}
model=$work/gpt2-small-8k
mkdir -p "$work"
if [ ! -f "$model/model.safetensors" ]; then
  /usr/bin/python3 "$here/make_long_context_model.py" "$model" --family gpt2 --layers 12 --heads 12 --width 768 \
    --positions 8192
fi
measure() { # label, command...: prints seconds and peak RSS (MiB)
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" > "$work/out.txt" 2>&1 || { cat "$work/out.txt"; exit 1; }
  read -r secs kb < "$work/time.txt"
  printf '%-44s %8.1f s %8.0f MiB\n' "$label" "$secs" "$((kb / 1024))"
}
for n in $sizes; do
  text=$work/text-$n.txt
  /usr/bin/python3 "$here/make_long_context_model.py" "$work/text-only" --layers 1 --heads 1 --width 8 \
    --positions 8 --text-tokens "$n" --text-file "$text" > /dev/null
  rm -rf "$work/text-only"
  measure "cli $n tokens: L0 H3 last 96 rows" "$build/app/attnscope-cli" attention "$model" --prompt-file "$text" \
    --backend cpu --layers 0 --heads 3 --rows $((n - 96)):$n --out "$work/cli-rows"
  measure "cli $n tokens: whole layer 5" "$build/app/attnscope-cli" attention "$model" --prompt-file "$text" \
    --backend cpu --layers 5 --out "$work/cli-layer"
  rm -rf "$work/shots"
  start=$(date +%s.%N)
  measure "gui $n tokens: run, head stats, 4 screenshots" env QT_QPA_PLATFORM=offscreen "$build/app/attnscope" "$model" \
    --input-file "$text" --size 1280x800 --screenshots "$work/shots"
  first=$(stat -c %.Y "$work/shots/heatmap.png")
  printf '%-44s %8.1f s\n' "gui $n tokens: first head on screen" "$(echo "$first - $start" | bc)"
done
