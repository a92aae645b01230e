# SPDX-License-Identifier: MIT
"""A plain-PyTorch Llama (HF LlamaForCausalLM semantics: RMSNorm, rotate-half RoPE, GQA, SwiGLU), with HF tensor names."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


def rotate_half(x):
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d, h, kv = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
        self.h, self.kv, self.hd = h, kv, d // h
        self.q_proj = nn.Linear(d, h * self.hd, bias=False)
        self.k_proj = nn.Linear(d, kv * self.hd, bias=False)
        self.v_proj = nn.Linear(d, kv * self.hd, bias=False)
        self.o_proj = nn.Linear(h * self.hd, d, bias=False)

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, self.h, self.hd).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.kv, self.hd).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.kv, self.hd).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rep = self.h // self.kv
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.hd)
        mask = torch.full((t, t), float("-inf"), device=x.device).triu(1)
        probs = F.softmax(scores + mask, dim=-1)
        out = (probs @ v).transpose(1, 2).reshape(b, t, -1)
        return self.o_proj(out), probs


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d, f, eps = cfg["hidden_size"], cfg["intermediate_size"], cfg["rms_norm_eps"]
        self.input_layernorm = RMSNorm(d, eps)
        self.self_attn = Attention(cfg)
        self.post_attention_layernorm = RMSNorm(d, eps)
        self.mlp = nn.Module()
        self.mlp.gate_proj = nn.Linear(d, f, bias=False)
        self.mlp.up_proj = nn.Linear(d, f, bias=False)
        self.mlp.down_proj = nn.Linear(f, d, bias=False)

    def forward(self, x, cos, sin):
        a, probs = self.self_attn(self.input_layernorm(x), cos, sin)
        x = x + a
        h = self.post_attention_layernorm(x)
        x = x + self.mlp.down_proj(F.silu(self.mlp.gate_proj(h)) * self.mlp.up_proj(h))
        return x, probs


class Llama(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.model = nn.Module()
        self.model.embed_tokens = nn.Embedding(cfg["vocab_size"], cfg["hidden_size"])
        self.model.layers = nn.ModuleList(Block(cfg) for _ in range(cfg["num_hidden_layers"]))
        self.model.norm = RMSNorm(cfg["hidden_size"], cfg["rms_norm_eps"])
        self.lm_head = nn.Linear(cfg["hidden_size"], cfg["vocab_size"], bias=False)

    def rope(self, t, device):
        hd = self.cfg["hidden_size"] // self.cfg["num_attention_heads"]
        inv = 1.0 / (self.cfg["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.float32, device=device) / hd))
        freqs = torch.outer(torch.arange(t, dtype=torch.float32, device=device), inv)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos(), emb.sin()

    def forward(self, ids, return_attn=False):
        cos, sin = self.rope(ids.shape[1], ids.device)
        x = self.model.embed_tokens(ids)
        attns = []
        for layer in self.model.layers:
            x, p = layer(x, cos, sin)
            attns.append(p)
        logits = self.lm_head(self.model.norm(x))
        return (logits, attns) if return_attn else logits
