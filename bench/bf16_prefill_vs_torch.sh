#!/bin/sh
# SPDX-License-Identifier: MIT
# A 512-token prefill with every attention matrix returned, eager PyTorch and the engine in turn on the same bf16
# folder (bench/gguf_bench.py --bf16-only writes it), the engine once with the environment's OPENBLAS_CORETYPE (if
# any) and once with it unset, so that the CPU seconds of all three come from one stretch of the machine's load.
# usage: bench/bf16_prefill_vs_torch.sh CLI MODEL_FOLDER
set -e
cli=$1 model=$2 out=/dev/shm/bf16_prefill_vs_torch
ids=$(/usr/bin/python3 -c "import numpy as np;print(','.join(str(i) for i in np.random.default_rng(0).integers(0,128256,512)))")
echo "torch, load $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "torch whole process: %U user %S sys %e wall %M KB" \
    /usr/bin/python3 "$(dirname "$0")/pytorch_llama_eager.py" --model "$model" --tokens 512 --runs 2
for core in "${OPENBLAS_CORETYPE:-}" unset; do
    [ -n "$core" ] || continue
    rm -rf "$out"
    echo "engine, OPENBLAS_CORETYPE $core, load $(cut -d' ' -f1-3 /proc/loadavg)"
    if [ "$core" = unset ]; then run="env -u OPENBLAS_CORETYPE"; else run="env OPENBLAS_CORETYPE=$core"; fi
    $run /usr/bin/time -f "engine whole process: %U user %S sys %e wall %M KB" \
        "$cli" attention "$model" --tokens "$ids" --backend cpu --out "$out" > /dev/null
done
rm -rf "$out"
