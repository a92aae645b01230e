#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang-14 (ASan + UBSan, in build/fuzz) and runs each for SECONDS
# (default 60). Corpora start from genuine files in ../shared and the saved regressions and grow in build/fuzz/corpus;
# a crash is written to build/fuzz/crashes/TARGET/ and makes this script exit 1 (copy it to
# tests/fuzz/regressions/TARGET/ once fixed, where ctest replays it).
#   usage: scripts/fuzz.sh [SECONDS] [TARGET...]   targets: safetensors config tokenizer llama2c npy alignment
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(safetensors config tokenizer llama2c npy alignment)
shared=${ATTNSCOPE_SHARED:-$(cd .. && pwd)/shared}
build=build/fuzz
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
seed tokenizer '\x01' "$tiny/gpt2/vocab.json"
seed tokenizer '\x02' "$tiny/bert/vocab.txt"
seed tokenizer '\x03' "$shared/models/stories260K/tok512.bin"
seed tokenizer '\x04' "$shared/models/stories260K/tok512.model"
seed tokenizer '\x05' "$tiny"/{gpt2,bert}/tokenizer_config.json
printf '>>fr<< hello >>de<<\n>>x' >"$build/marian-text.txt"
seed tokenizer '\x06' "$build/marian-text.txt"
seed llama2c '' "$shared/models/stories260K/stories260K.bin" "$shared/models/stories260K/stories260K_v1.bin"
seed npy '' "$tiny"/vit/golden/item0/*.npy "$shared/models/stories260K/reference_logits_first32_x512.npy"
seed alignment '' "$shared/models/align-gold-hansards-fr-en/hansards37.a" resources/models/demo-translate-marian/heldout.align

status=0
for t in "${targets[@]}"; do
  mkdir -p "$build/crashes/$t"
  dict=()
  case $t in safetensors | config | tokenizer) dict=(-dict=tests/fuzz/json.dict) ;; esac
  max_len=262144
  [ "$t" = llama2c ] && max_len=1100000 # the stories260K seeds are ~1 MB
  regressions=()
  [ -d "tests/fuzz/regressions/$t" ] && regressions=("tests/fuzz/regressions/$t")
  echo "fuzz.sh: $t for ${seconds}s"
  # -rss_limit_mb: an input that makes a loader allocate more than 2 GB is a finding (issue 20's budget).
  if ! "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=$max_len \
      -artifact_prefix="$build/crashes/$t/" -print_final_stats=1 "${dict[@]}" "$build/corpus/$t" "${regressions[@]}" \
      2>"$build/$t.log"; then
    status=1
    echo "fuzz.sh: $t FOUND A CRASH: see $build/$t.log and $build/crashes/$t/" >&2
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$build/$t.log" | tr '\n' ' '
  echo
done
exit $status
