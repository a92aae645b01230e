#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates docs/figures/: one exported figure of each view and format (plus a recipe and the data), made by
# `attnscope-cli export` from stories260K with a fixed prompt, with no display.
# usage: tools/make_figures.sh [path/to/attnscope-cli]   (run from anywhere; default: build/release/app/attnscope-cli)
set -euo pipefail
cd "$(dirname "$0")/.."
cli=${1:-build/release/app/attnscope-cli}
model=../shared/models/stories260K/stories260K.bin
prompt="Once upon a time, there was a little cat who liked to play in the sun."
out=docs/figures
mkdir -p "$out"
run() { "$cli" export "$model" --prompt "$prompt" "$@"; }

run --view heatmap --layer 2 --head 3 --format svg --out "$out/heatmap.svg"
run --view heatmap --layer 2 --head 3 --format pdf --out "$out/heatmap.pdf"
run --view heatmap --layer 2 --head 3 --format png --dpi 192 --width 640 --height 560 --out "$out/heatmap.png"
run --view heatmap --layer 2 --head 3 --format json --dpi 192 --width 640 --height 560 --out "$out/heatmap.recipe.json"
run --view heatmap --layer 2 --head 3 --format csv --out "$out/heatmap.csv"
run --view grid --layer 2 --head 3 --colormap magma --format png --out "$out/grid.png"
run --view headview --layer 2 --heads 0,3 --format svg --out "$out/headview.svg"
run --view stats --metric previous-token --format pdf --out "$out/stats.pdf"
run --view stats --metric previous-token --format png --dpi 144 --out "$out/stats.png"
run --view decode --format svg --out "$out/decode.svg"
# The recipe alone reproduces the PNG byte for byte.
"$cli" export --recipe "$out/heatmap.recipe.json" --format png --out /tmp/attnscope-recipe-check.png
cmp "$out/heatmap.png" /tmp/attnscope-recipe-check.png && echo "recipe reproduces heatmap.png"
