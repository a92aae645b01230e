#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Plain eager PyTorch Llama forward with every layer's attention probabilities returned, on the engine's weights.

It stands in for HF transformers' LlamaForCausalLM(..., attn_implementation="eager")(ids, output_attentions=True),
which cannot be installed here: the code below repeats HF's eager Llama math op for op (LlamaRMSNorm in float32 then
weight * x.to(dtype), rotate-half RoPE with cos/sin cast to the dtype, repeat_kv, q k^T / sqrt(head_dim) + a
finfo.min causal mask, softmax in float32 cast back, SwiGLU, the LM head over every position). `--check` runs the
HF-made fixture fixtures/hf-tiny/llama and compares attentions and logits with its HF goldens, so the stand-in is
shown to compute what HF computes. Timing: a bf16 safetensors folder (bench/gguf_bench.py --bf16-only writes one at
Llama-3.2-1B's shape), run in bf16 as loaded, as HF would with torch_dtype=bfloat16.

Usage: /usr/bin/python3 bench/pytorch_llama_eager.py --check ../shared/fixtures/hf-tiny/llama
       /usr/bin/python3 bench/pytorch_llama_eager.py --model /tmp/gguf_bench/llama1b-bf16 [--tokens 512] [--runs 3]
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tools', 'train'))
import safetensors_io  # noqa: E402  (the repository's one safetensors reader)


def load(folder):
    cfg = json.load(open(os.path.join(folder, 'config.json')))
    raw = safetensors_io.load_file(os.path.join(folder, 'model.safetensors'))  # BF16 as its bits
    w = {}
    for name, a in raw.items():
        w[name] = torch.from_numpy(a.view(np.int16)).view(torch.bfloat16) if a.dtype == np.uint16 else torch.from_numpy(a)
    return cfg, w


def rms_norm(x, weight, eps):
    h = x.to(torch.float32)
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return weight * h.to(x.dtype)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def forward(cfg, w, ids):
    """(logits [T, V], [probs [H, T, T] per layer]) as HF's eager LlamaForCausalLM."""
    H, KV, D = cfg['num_attention_heads'], cfg['num_key_value_heads'], cfg['hidden_size']
    hd = cfg.get('head_dim', D // H)
    eps, T = cfg['rms_norm_eps'], len(ids)
    x = w['model.embed_tokens.weight'][torch.tensor(ids)]
    dtype = x.dtype
    inv = 1.0 / (cfg.get('rope_theta', 10000.0) ** (torch.arange(0, hd, 2, dtype=torch.int64).float() / hd))
    freqs = torch.arange(T, dtype=torch.float32)[:, None] * inv[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos().to(dtype), emb.sin().to(dtype)
    mask = torch.full((T, T), torch.finfo(dtype).min, dtype=dtype).triu(1)
    probs = []
    for l in range(cfg['num_hidden_layers']):
        p = f'model.layers.{l}.'
        lin = lambda h, n: h @ w[p + n + '.weight'].T
        h = rms_norm(x, w[p + 'input_layernorm.weight'], eps)
        q = lin(h, 'self_attn.q_proj').view(T, H, hd).transpose(0, 1)
        k = lin(h, 'self_attn.k_proj').view(T, KV, hd).transpose(0, 1)
        v = lin(h, 'self_attn.v_proj').view(T, KV, hd).transpose(0, 1)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = k.repeat_interleave(H // KV, dim=0), v.repeat_interleave(H // KV, dim=0)
        s = q @ k.transpose(1, 2) / (hd ** 0.5) + mask
        a = torch.softmax(s, dim=-1, dtype=torch.float32).to(dtype)
        probs.append(a)
        x = x + lin((a @ v).transpose(0, 1).reshape(T, H * hd), 'self_attn.o_proj')
        h = rms_norm(x, w[p + 'post_attention_layernorm.weight'], eps)
        x = x + lin(torch.nn.functional.silu(lin(h, 'mlp.gate_proj')) * lin(h, 'mlp.up_proj'), 'mlp.down_proj')
    x = rms_norm(x, w['model.norm.weight'], eps)
    head = w.get('lm_head.weight', w['model.embed_tokens.weight'])
    return x @ head.T, probs


def check(folder):
    cfg, w = load(folder)
    gold = os.path.join(folder, 'golden', 'item0')
    ids = [int(i) for i in np.load(os.path.join(gold, 'input_ids.npy'))]
    with torch.no_grad():
        logits, probs = forward(cfg, w, ids)
    ea = max(float((a - torch.from_numpy(np.load(os.path.join(gold, f'attentions.L{l:02d}.npy')))).abs().max())
             for l, a in enumerate(probs))
    el = float((logits - torch.from_numpy(np.load(os.path.join(gold, 'logits.npy')))).abs().max())
    print(f'vs HF goldens: attentions max abs {ea:.2e}, logits {el:.2e}')
    return ea <= 1e-5 and el <= 1e-4


def bench(folder, tokens, runs, threads):
    torch.set_num_threads(threads)
    t0 = time.perf_counter()
    cfg, w = load(folder)
    print(f'loaded {folder} in {time.perf_counter() - t0:.1f} s ({next(iter(w.values())).dtype}), '
          f'{threads} threads, {tokens} tokens')
    ids = [int(i) for i in np.random.default_rng(0).integers(0, cfg['vocab_size'], tokens)]
    times, cpus = [], []  # wall and this process's CPU (every thread's user + sys) per prefill
    with torch.no_grad():
        for _ in range(runs):
            t, c = time.perf_counter(), time.process_time()
            logits, probs = forward(cfg, w, ids)
            times.append(time.perf_counter() - t)
            cpus.append(time.process_time() - c)
    print(f'eager PyTorch prefill, all attention returned: median {statistics.median(times):.2f} s over {runs} runs '
          f'({", ".join(f"{x:.2f}" for x in times)}), CPU {", ".join(f"{x:.2f}" for x in cpus)} s; '
          f'{len(probs)} layers of {tuple(probs[0].shape)}; load {os.getloadavg()[0]:.1f}')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--check')
    ap.add_argument('--model')
    ap.add_argument('--tokens', type=int, default=512)
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--threads', type=int, default=2)
    a = ap.parse_args()
    if a.check:
        sys.exit(0 if check(a.check) else 1)
    bench(a.model, a.tokens, a.runs, a.threads)


if __name__ == '__main__':
    main()
