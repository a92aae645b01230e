#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang-14 (ASan + UBSan, in build/fuzz) and runs each for SECONDS
# (default 60). Corpora start from genuine files in ../shared and the saved regressions and grow in build/fuzz/corpus;
# a crash is written to build/fuzz/crashes/TARGET/ and makes this script exit 1 (copy it to
# tests/fuzz/regressions/TARGET/ once fixed, where ctest replays it).
# The recipe, workspace and image targets need Qt 6 (the files the app parses with Qt).
# Long campaigns: --rounds N runs the targets in turn N times, one process at a time, each round resuming from the
# corpus the last one grew. Every run appends "date target seconds runs result" to build/fuzz/ledger.tsv, so hours
# accumulate over many invocations; --totals prints the sum per target (and runs nothing). On a shared machine run
# it as `FUZZ_TIMEOUT=30 nice -n 19 scripts/fuzz.sh --rounds N SECONDS`.
#   usage: scripts/fuzz.sh [--rounds N] [SECONDS] [TARGET...]
#          scripts/fuzz.sh --totals
#   targets: safetensors config tokenizer llama2c npy alignment gguf recipe workspace image
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/fuzz
ledger=$build/ledger.tsv
rounds=1
case ${1:-} in
--totals)
  [ -f "$ledger" ] || { echo "fuzz.sh: no $ledger yet" >&2; exit 1; }
  awk -F'\t' '{ s[$2] += $3; n[$2] += $4; if ($5 != "ok") f[$2]++ } END {
    for (t in s) printf "%-12s %8d s %12d runs %3d findings\n", t, s[t], n[t], f[t] }' "$ledger" | sort
  exit 0 ;;
--rounds) rounds=$2; shift 2 ;;
esac
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(safetensors config tokenizer llama2c npy alignment gguf recipe workspace image)
shared=${ATTNSCOPE_SHARED:-$(cd .. && pwd)/shared}
# libFuzzer's timeout is wall time: on a machine shared with builds, at nice 19, a genuine seed that takes 1 s of CPU
# can exceed 10 s and be reported. FUZZ_TIMEOUT widens it there (a real hang still trips it).
timeout=${FUZZ_TIMEOUT:-10}
# LeakSanitizer's tracer crashed ("Tracer caught signal 11") on the image target's grown corpus: a bug of the
# sanitizer runtime up to LLVM 16 and GCC 13 (google/sanitizers#1322), not of the code under test. Its __tls_get_addr
# interceptor takes any dynamic TLS block that starts 16 bytes past a 4 KiB boundary for a glibc <= 2.24 block and
# reads the block's bounds from the 16 bytes before it, which are ASan's own chunk header; the leak check then scans
# a range that is not mapped. The image target has such blocks: libjpeg (loaded with Qt's jpeg plugin, by dlopen)
# reads thread-local variables on every scanline, and where its block lands depends on the heap, so some corpora hit
# it and others not. With the interceptor off, LSan does not scan dynamic TLS blocks, which hold no pointer to an
# allocation here (the targets run without a leak report). A user's ASAN_OPTIONS come after it and win.
export ASAN_OPTIONS="intercept_tls_get_addr=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_CXX_FLAGS="$flags" -DAS_BUILD_FUZZERS=ON -DAS_BUILD_TESTS=OFF -DAS_BUILD_GUI=OFF -DAS_BUILD_BENCH=OFF \
  -DAS_ENABLE_VULKAN=OFF "${launcher[@]}" >/dev/null
cmake --build "$build" -j2 --target $(printf 'fuzz_%s ' "${targets[@]}")

# Seeds: genuine files of each kind (copied, so the corpus folder can grow).
seed() { # TARGET PREFIX FILE...: copies each FILE as PREFIX + its bytes (the target's selector byte)
  local target=$1 prefix=$2 i=0
  shift 2
  mkdir -p "$build/corpus/$target"
  for f in "$@"; do
    [ -f "$f" ] || continue
    { printf "$prefix"; cat "$f"; } >"$build/corpus/$target/seed-$i-$(basename "$f")"
    i=$((i + 1))
  done
}
tiny=$shared/fixtures/hf-tiny
seed safetensors '\x00' "$tiny"/{gpt2,bert,llama,vit,t5}/model.safetensors
printf '{"metadata":{},"weight_map":{"w":"model-00001-of-00001.safetensors"}}' >"$build/index.json"
seed safetensors '\x01' "$build/index.json"
seed config '' "$tiny"/*/config.json resources/models/*/config.json "$tiny/vit/preprocessor_config.json"
seed tokenizer '\x00' "$shared/models/gpt2-bpe-tokenizer/encoder.json"
# No tokenizer.json lies in ../shared: two are built from the gpt2 fixture's vocab.json + merges.txt, so the fuzzer
# starts inside the BPE reader (pre-tokenizer forms, added tokens, the post-processor kinds) rather than at its door.
/usr/bin/python3 - "$tiny/gpt2" "$build" <<'PY'
import json, sys
src, out = sys.argv[1:]
vocab = json.load(open(src + "/vocab.json"))
merges = [l for l in open(src + "/merges.txt").read().splitlines()[1:] if l]
eos = {"id": "<|endoftext|>", "ids": [vocab["<|endoftext|>"]], "tokens": ["<|endoftext|>"]}
added = [{"id": vocab["<|endoftext|>"], "content": "<|endoftext|>", "special": True}]
template = {"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A", "type_id": 0}},
            {"SpecialToken": {"id": "<|endoftext|>", "type_id": 0}}], "pair": [{"Sequence": {"id": "A", "type_id": 0}},
            {"SpecialToken": {"id": "<|endoftext|>", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"<|endoftext|>": eos}}
split = {"type": "Sequence", "pretokenizers": [{"type": "Split", "behavior": "Isolated", "invert": False, "pattern": {
    "Regex": "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"}},
    {"type": "ByteLevel", "add_prefix_space": True, "use_regex": False}]}
roberta = {"type": "RobertaProcessing", "sep": ["<|endoftext|>", vocab["<|endoftext|>"]], "cls": ["<|endoftext|>", vocab["<|endoftext|>"]]}
for name, pre, post, m in (("tokenizer-template.json", {"type": "ByteLevel", "add_prefix_space": False}, template,
                            merges), ("tokenizer-roberta.json", split, roberta, [x.split(" ") for x in merges])):
    json.dump({"version": "1.0", "added_tokens": added, "normalizer": None, "pre_tokenizer": pre, "post_processor": post,
               "model": {"type": "BPE", "vocab": vocab, "merges": m, "unk_token": None, "ignore_merges": False}},
              open(out + "/" + name, "w"))
PY
seed tokenizer '\x00' "$build"/tokenizer-{template,roberta}.json
seed tokenizer '\x01' "$tiny/gpt2/vocab.json"
seed tokenizer '\x02' "$tiny/bert/vocab.txt"
seed tokenizer '\x03' "$shared/models/stories260K/tok512.bin"
seed tokenizer '\x04' "$shared/models/stories260K/tok512.model"
seed tokenizer '\x05' "$tiny"/{gpt2,bert}/tokenizer_config.json
printf '>>fr<< hello >>de<<\n>>x' >"$build/marian-text.txt"
seed tokenizer '\x06' "$build/marian-text.txt"
seed tokenizer '\x07' resources/models/demo-translate-marian/vocab.json
seed llama2c '' "$shared/models/stories260K/stories260K.bin" "$shared/models/stories260K/stories260K_v1.bin"
seed npy '' "$tiny"/vit/golden/item0/*.npy "$shared/models/stories260K/reference_logits_first32_x512.npy"
seed alignment '' "$shared/models/align-gold-hansards-fr-en/hansards37.a" resources/models/demo-translate-marian/heldout.align
gguf=$shared/fixtures/gguf
seed gguf '' "$gguf"/hf-tiny-llama/hf-tiny-llama-{F32,Q4_0,Q8_0}.gguf "$gguf"/kq256/kq256-{Q2_K,Q6_K}.gguf \
  "$gguf"/stories260K/stories260K-{Q4_0,Q8_0}.gguf "$shared/models/bert-uncased-wordpiece-vocab/ggml-vocab-bert-bge.gguf"
seed recipe '' docs/figures/*.recipe.json
# A workspace as File > Save Workspace writes it (every key, a decode with one forced token).
cat >"$build/workspace.attnscope" <<'JSON'
{"format": "attnscope-workspace/1", "model": "/models/demo-stories-llama", "input": "Once upon a time",
 "target": "", "attention": "self", "tab": "Decode", "layer": 2, "head": 0, "head_view_heads": [0, 1],
 "colormap": "magma", "scale": "log10", "exclude_first_token": true, "show_mask": false, "metric": "sink-mass",
 "decode": {"prompt_text": "Once", "prompt_ids": [1, 403], "generated_ids": [9, 31], "forced": [false, true],
            "temperature": 0.8, "top_k": 40, "top_p": 0.95, "seed": 7}}
JSON
seed workspace '' "$build/workspace.attnscope"
# Images: the first byte picks the suffix (png jpg bmp gif ppm pgm xpm ico, tests/fuzz/qt/fuzz_image.cpp).
printf 'P6\n2 2\n255\n\377\0\0\0\377\0\0\0\377\377\377\377' >"$build/tiny.ppm"
seed image '\x00' resources/models/demo-vit-shapes/samples/sample_{0,1}_*.png
seed image '\x01' /usr/share/qt6/doc/global/template/images/*.jpg /usr/share/doc/nodejs/*.jpg
seed image '\x04' "$build/tiny.ppm"

status=0
for ((round = 1; round <= rounds; round++)); do
for t in "${targets[@]}"; do
  mkdir -p "$build/crashes/$t"
  touch "$build/$t.start"
  dict=()
  case $t in
  safetensors | config | tokenizer) dict=(-dict=tests/fuzz/json.dict) ;;
  recipe | workspace) dict=(-dict=tests/fuzz/ui_files.dict) ;;
  gguf) dict=(-dict=tests/fuzz/gguf.dict) ;;
  image) dict=(-dict=tests/fuzz/image.dict) ;;
  esac
  max_len=262144
  case $t in llama2c | gguf) max_len=1100000 ;; esac # the stories260K seeds are ~1 MB
  regressions=()
  [ -d "tests/fuzz/regressions/$t" ] && regressions=("tests/fuzz/regressions/$t")
  echo "fuzz.sh: $t for ${seconds}s (round $round of $rounds)"
  begin=$(date +%s)
  result=ok
  # -rss_limit_mb: an input that makes a loader allocate more than 2 GB is a finding (issue 20's budget).
  if ! "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout="$timeout" -max_len=$max_len \
      -artifact_prefix="$build/crashes/$t/" -print_final_stats=1 "${dict[@]}" "$build/corpus/$t" "${regressions[@]}" \
      2>"$build/$t.log"; then
    status=1
    result=finding
    echo "fuzz.sh: $t FOUND A CRASH: see $build/$t.log and $build/crashes/$t/" >&2
    # CI keeps only the console: print the report itself, and the input as hex, so a finding can be replayed.
    grep -v '^#\|^"\|^  *"\|^INFO:\|^\[' "$build/$t.log" | tail -n 60 >&2 || true
    find "$build/crashes/$t" -type f -newer "$build/$t.start" | while read -r a; do
      { echo "fuzz.sh: $(basename "$a") ($(stat -c %s "$a") bytes), first 4 KiB as hex:"; head -c 4096 "$a" | od -An -tx1 | head -n 260; } >&2
    done
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$build/$t.log" | tr '\n' ' '
  echo
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/$t.log")
  printf '%s\t%s\t%d\t%d\t%s\n' "$(date -u +%FT%TZ)" "$t" $(($(date +%s) - begin)) "${runs:-0}" $result >>"$ledger"
done
done
exit $status
