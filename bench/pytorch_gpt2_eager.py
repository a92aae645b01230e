#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Plain eager PyTorch GPT-2 forward with every layer's attention probabilities returned.

It stands in for HF transformers' GPT2LMHeadModel(..., attn_implementation="eager")(ids, output_attentions=True),
which cannot be installed here: the modules below repeat HF's eager GPT-2 math op for op (Conv1D = addmm, the
split/merge of heads, matmul / sqrt(head_dim), torch.where with the bool causal buffer and finfo.min, softmax,
gelu_new, pre-LN blocks, tied LM head over every position). `--check` loads the HF-made fixture
fixtures/hf-tiny/gpt2 and compares attentions and logits with its HF goldens, so the stand-in is shown to compute what
HF computes. Timing: GPT-2-small shape (12 layers, 12 heads, 768 wide, vocab 50257) with random weights.

Usage: /usr/bin/python3 bench/pytorch_gpt2_eager.py [--threads 2] [--tokens 512] [--runs 7] [--no-attentions]
       (--threads sets torch's own threads; OpenBLAS keeps its own pool: set OPENBLAS_NUM_THREADS to match, as
       bench/peers.sh does; the products' kernels and threads are printed with the times)
       (--no-attentions: HF's output_attentions=False, each layer's probabilities dropped once used)
       /usr/bin/python3 bench/pytorch_gpt2_eager.py --check ../shared/fixtures/hf-tiny/gpt2
"""
import argparse
import json
import math
import os
import statistics
import time

import numpy as np
import torch
from torch import nn


class Config:
    def __init__(self, n_layer=12, n_head=12, n_embd=768, vocab_size=50257, n_positions=1024, n_inner=None,
                 layer_norm_epsilon=1e-5):
        self.n_layer, self.n_head, self.n_embd = n_layer, n_head, n_embd
        self.vocab_size, self.n_positions = vocab_size, n_positions
        self.n_inner = n_inner if n_inner is not None else 4 * n_embd
        self.layer_norm_epsilon = layer_norm_epsilon


class Conv1D(nn.Module):
    """HF pytorch_utils.Conv1D: weight stored [in, out]."""

    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.empty(nx, nf).normal_(std=0.02))
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Attention(nn.Module):
    """HF GPT2Attention, eager path (_attn), self-attention without layer-idx scaling or upcast."""

    def __init__(self, c):
        super().__init__()
        n = c.n_positions
        self.register_buffer("bias", torch.tril(torch.ones((n, n), dtype=torch.bool)).view(1, 1, n, n),
                             persistent=False)
        self.num_heads, self.head_dim, self.split_size = c.n_head, c.n_embd // c.n_head, c.n_embd
        self.c_attn = Conv1D(3 * c.n_embd, c.n_embd)
        self.c_proj = Conv1D(c.n_embd, c.n_embd)

    def _attn(self, query, key, value):
        attn_weights = torch.matmul(query, key.transpose(-1, -2))
        attn_weights = attn_weights / torch.full([], value.size(-1) ** 0.5, dtype=attn_weights.dtype,
                                                 device=attn_weights.device)
        query_length, key_length = query.size(-2), key.size(-2)
        causal_mask = self.bias[:, :, key_length - query_length: key_length, :key_length]
        mask_value = torch.full([], torch.finfo(attn_weights.dtype).min, dtype=attn_weights.dtype,
                                device=attn_weights.device)
        attn_weights = torch.where(causal_mask, attn_weights.to(attn_weights.dtype), mask_value)
        attn_weights = nn.functional.softmax(attn_weights, dim=-1)
        attn_weights = attn_weights.type(value.dtype)
        return torch.matmul(attn_weights, value), attn_weights

    def _split_heads(self, t):
        return t.view(t.size()[:-1] + (self.num_heads, self.head_dim)).permute(0, 2, 1, 3)

    def _merge_heads(self, t):
        t = t.permute(0, 2, 1, 3).contiguous()
        return t.view(t.size()[:-2] + (self.num_heads * self.head_dim,))

    def forward(self, hidden_states):
        query, key, value = self.c_attn(hidden_states).split(self.split_size, dim=2)
        query, key, value = self._split_heads(query), self._split_heads(key), self._split_heads(value)
        present = (key, value)  # use_cache=True, as HF's default
        attn_output, attn_weights = self._attn(query, key, value)
        return self.c_proj(self._merge_heads(attn_output)), present, attn_weights


class Mlp(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c_fc = Conv1D(c.n_inner, c.n_embd)
        self.c_proj = Conv1D(c.n_embd, c.n_inner)

    def forward(self, x):
        return self.c_proj(gelu_new(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.ln_1 = nn.LayerNorm(c.n_embd, eps=c.layer_norm_epsilon)
        self.attn = Attention(c)
        self.ln_2 = nn.LayerNorm(c.n_embd, eps=c.layer_norm_epsilon)
        self.mlp = Mlp(c)

    def forward(self, x):
        a, present, weights = self.attn(self.ln_1(x))
        x = x + a
        return x + self.mlp(self.ln_2(x)), present, weights


class Gpt2LMHead(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.wte = nn.Embedding(c.vocab_size, c.n_embd)
        self.wpe = nn.Embedding(c.n_positions, c.n_embd)
        nn.init.normal_(self.wte.weight, std=0.02)
        nn.init.normal_(self.wpe.weight, std=0.01)
        self.h = nn.ModuleList([Block(c) for _ in range(c.n_layer)])
        self.ln_f = nn.LayerNorm(c.n_embd, eps=c.layer_norm_epsilon)

    def forward(self, input_ids, keep_attentions=True):
        position_ids = torch.arange(0, input_ids.size(-1), dtype=torch.long).unsqueeze(0)
        x = self.wte(input_ids) + self.wpe(position_ids)
        presents, attentions = [], []
        for block in self.h:
            x, present, weights = block(x)
            presents.append(present)
            if keep_attentions:
                attentions.append(weights)
        x = self.ln_f(x)
        logits = nn.functional.linear(x, self.wte.weight)  # tied lm_head, every position (as HF)
        return logits, tuple(presents), tuple(attentions)


def read_safetensors(path):
    """Minimal F32 safetensors reader (the safetensors package is not installed here)."""
    with open(path, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] != "F32":
            raise SystemExit(f"{path}: {name} is {info['dtype']}, only F32 is read here")
        b, e = info["data_offsets"]
        out[name] = torch.from_numpy(np.frombuffer(data[b:e], dtype="<f4").reshape(info["shape"]).copy())
    return out


def check(folder):
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    c = Config(cfg["n_layer"], cfg["n_head"], cfg["n_embd"], cfg["vocab_size"], cfg["n_positions"], cfg.get("n_inner"),
               cfg.get("layer_norm_epsilon", 1e-5))
    model = Gpt2LMHead(c).eval()
    weights = {k.removeprefix("transformer."): v for k, v in read_safetensors(os.path.join(folder, "model.safetensors")).items()}
    weights.pop("lm_head.weight", None)
    missing, unexpected = model.load_state_dict(weights, strict=False)
    if missing or unexpected:
        raise SystemExit(f"{folder}: missing {missing}, unexpected {unexpected}")
    golden = os.path.join(folder, "golden", "item0")
    ids = torch.from_numpy(np.load(os.path.join(golden, "input_ids.npy"))).unsqueeze(0)
    with torch.no_grad():
        logits, _, attentions = model(ids)
    worst = {"logits": np.abs(logits[0].numpy() - np.load(os.path.join(golden, "logits.npy"))).max()}
    worst["attentions"] = max(np.abs(a[0].numpy() - np.load(os.path.join(golden, f"attentions.L{l:02d}.npy"))).max()
                              for l, a in enumerate(attentions))
    print(f"{folder}: max |ours - HF golden| logits {worst['logits']:.3g}, attentions {worst['attentions']:.3g}")
    if worst["logits"] > 1e-4 or worst["attentions"] > 1e-5:  # the fixture's suggested fp32 tolerances
        raise SystemExit("FAIL: the stand-in does not reproduce HF eager GPT-2")
    print("OK: matches HF eager GPT-2 within the fixture's suggested tolerances")


def blas_kernels():
    """The OpenBLAS core and thread count torch's products run on (as loaded: torch links the system libblas)."""
    import ctypes
    libs = sorted({line.split()[-1] for line in open("/proc/self/maps") if "openblas" in line and ".so" in line})
    for path in libs:
        lib = ctypes.CDLL(path)
        if hasattr(lib, "openblas_get_corename"):
            lib.openblas_get_corename.restype = ctypes.c_char_p
            return f"OpenBLAS {lib.openblas_get_corename().decode()} x{lib.openblas_get_num_threads()}"
    return "no OpenBLAS loaded"


def bench(threads, tokens, runs, keep_attentions):
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    c = Config(n_positions=max(1024, tokens))
    model = Gpt2LMHead(c).eval()
    ids = torch.randint(0, c.vocab_size, (1, tokens))
    walls, cpus = [], []
    with torch.no_grad():
        model(ids, keep_attentions)  # warm-up (allocator, OpenBLAS buffers)
        for _ in range(runs):
            w0, c0 = time.perf_counter(), time.process_time()
            logits, _, attentions = model(ids, keep_attentions)
            cpus.append(time.process_time() - c0)
            walls.append(time.perf_counter() - w0)
    assert not keep_attentions or (len(attentions) == c.n_layer and attentions[0].shape == (1, c.n_head, tokens, tokens))
    assert logits.shape == (1, tokens, c.vocab_size)
    print(f"pytorch eager gpt2-small threads={threads} tokens={tokens} runs={runs} attentions={keep_attentions} "
          f"wall median {statistics.median(walls):.3f} s (min {min(walls):.3f}) "
          f"cpu median {statistics.median(cpus):.3f} s  {blas_kernels()}  load average {os.getloadavg()[0]:.2f}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--tokens", type=int, default=512)
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--no-attentions", action="store_true", help="output_attentions=False: drop each layer's probabilities")
    p.add_argument("--check", metavar="FIXTURE_DIR", help="compare with an hf-tiny gpt2 fixture's HF goldens instead")
    a = p.parse_args()
    if a.check:
        check(a.check)
    else:
        bench(a.threads, a.tokens, a.runs, not a.no_attentions)


if __name__ == "__main__":
    main()
