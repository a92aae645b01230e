# SPDX-License-Identifier: MIT
"""The arithmetic floor of head importance on a GPT-2-small-shaped model (bench/README.md, "Head importance: the
floor"): the multiply-adds the exact definition needs, and how fast this machine's OpenBLAS multiplies the shapes they
come in. Run as `. bench/openblas_core.sh && /usr/bin/python3 bench/sgemm_floor.py` so that numpy uses the OpenBLAS
kernels the engine picks."""
import os
import time

import numpy as np

N, D, I, V, L, H = 512, 768, 3072, 50257, 12, 12


def layer_flop(n):
    """One pre-LN GPT-2 block over n tokens: the four projections plus causal QK^T and PV."""
    projections = 2 * n * (3 * D * D + D * D + 2 * D * I)
    attention = 2 * 2 * (n * (n + 1) // 2) * D
    return projections + attention


def lm_head_flop(n):
    return 2 * n * D * V


def rate(a_rows, k, cols, repeats=4):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((a_rows, k), dtype=np.float32)
    b = rng.standard_normal((k, cols), dtype=np.float32)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - start)
    return 2 * a_rows * k * cols / best


def main():
    # Removing head h of layer l re-runs layers l..L-1 and the LM head (the layers below are reused).
    layers = sum(H * (L - l) for l in range(L)) * layer_flop(N)
    head = L * H * lm_head_flop(N)
    unmodified = L * layer_flop(N) + lm_head_flop(N)
    total = layers + head + unmodified
    lm_rate, fc_rate = rate(N, D, V), rate(N, D, I, repeats=10)
    print(f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(detected)')}")
    print(f"head importance, {L * H} heads, {N} tokens: {total / 1e12:.2f} TFLOP "
          f"(layers {layers / 1e12:.2f}, LM head {head / 1e12:.2f} = {100 * head / total:.0f} %)")
    print(f"sgemm [{N}x{D}]x[{D}x{V}] (LM head): {lm_rate / 1e9:.0f} GFLOP/s; "
          f"[{N}x{D}]x[{D}x{I}] (MLP): {fc_rate / 1e9:.0f} GFLOP/s")
    print(f"floor at these rates: LM head alone {head / lm_rate:.1f} s, everything "
          f"{head / lm_rate + (layers + unmodified) / fc_rate:.1f} s")


if __name__ == "__main__":
    main()
