# SPDX-License-Identifier: MIT
"""A float64 NumPy Phi-3 forward, op for op as transformers 4.45's eager Phi3ForCausalLM (modeling_phi3.py):
Phi3RMSNorm (x * rsqrt(mean(x^2) + eps), times w), fused qkv_proj split [q | k | v], rotate-half RoPE, GQA by
repeating KV heads, softmax(q k^T / sqrt(head_dim) + causal mask), o_proj, fused gate_up_proj split [gate | up] with
down_proj(up * silu(gate)), final norm, lm_head. RoPE as Phi3RotaryEmbedding (plain) or
Phi3LongRoPEScaledRotaryEmbedding (longrope): inv_freq = 1 / (ext * theta^(2i / head_dim)) with ext the long factors
once the sequence (max position + 1) exceeds original_max_position_embeddings, else the short ones, and cos and sin
times sqrt(1 + ln(s) / ln(orig)) for s = max_position_embeddings / orig > 1 (1 otherwise).
The reference that a longrope GGUF is checked against, since no HF golden with longrope exists; check_gguf_families.py
first holds this port to the HF goldens of the unscaled fixture."""
import math
import numpy as np


def rope_tables(cfg, length, longrope=None):
    """cos, sin [length, head_dim]; longrope: {'short_factor', 'long_factor', 'original_max_position_embeddings'}."""
    hd = cfg['hidden_size'] // cfg['num_attention_heads']
    ext, scale = np.ones(hd // 2), 1.0
    if longrope:
        orig = longrope['original_max_position_embeddings']
        ext = np.array(longrope['long_factor' if length > orig else 'short_factor'], np.float64)
        s = cfg['max_position_embeddings'] / orig
        scale = math.sqrt(1 + math.log(s) / math.log(orig)) if s > 1 else 1.0
    inv_freq = 1.0 / (ext * cfg['rope_theta'] ** (np.arange(0, hd, 2, dtype=np.float64) / hd))
    freqs = np.outer(np.arange(length, dtype=np.float64), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb) * scale, np.sin(emb) * scale


def _rms(x, w, eps):
    return w * (x / np.sqrt((x * x).mean(-1, keepdims=True) + eps))


def _rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def forward(weights, cfg, ids, longrope=None, rope=None):
    """(logits [T, V], [attention [heads, T, T] per layer]) in float64; rope: other (cos, sin) tables [T, head_dim]."""
    W = {k: v.astype(np.float64) for k, v in weights.items()}
    H, D = cfg['num_attention_heads'], cfg['hidden_size']
    KV, hd, eps = cfg.get('num_key_value_heads') or H, D // H, cfg['rms_norm_eps']
    T = len(ids)
    cos, sin = rope if rope is not None else rope_tables(cfg, T, longrope)
    mask = np.triu(np.full((T, T), -np.inf), 1)
    x = W['model.embed_tokens.weight'][np.asarray(ids)]
    attentions = []
    for layer in range(cfg['num_hidden_layers']):
        p = f'model.layers.{layer}.'
        qkv = _rms(x, W[p + 'input_layernorm.weight'], eps) @ W[p + 'self_attn.qkv_proj.weight'].T
        q = qkv[:, :H * hd].reshape(T, H, hd).transpose(1, 0, 2)
        k = qkv[:, H * hd:(H + KV) * hd].reshape(T, KV, hd).transpose(1, 0, 2)
        v = qkv[:, (H + KV) * hd:].reshape(T, KV, hd).transpose(1, 0, 2)
        q, k = q * cos + _rotate_half(q) * sin, k * cos + _rotate_half(k) * sin
        k, v = np.repeat(k, H // KV, axis=0), np.repeat(v, H // KV, axis=0)
        s = q @ k.transpose(0, 2, 1) / math.sqrt(hd) + mask
        a = np.exp(s - s.max(-1, keepdims=True))
        a /= a.sum(-1, keepdims=True)
        attentions.append(a)
        x = x + (a @ v).transpose(1, 0, 2).reshape(T, H * hd) @ W[p + 'self_attn.o_proj.weight'].T
        gate_up = _rms(x, W[p + 'post_attention_layernorm.weight'], eps) @ W[p + 'mlp.gate_up_proj.weight'].T
        gate, up = np.split(gate_up, 2, axis=-1)
        x = x + (up * gate / (1 + np.exp(-gate))) @ W[p + 'mlp.down_proj.weight'].T
    return _rms(x, W['model.norm.weight'], eps) @ W['lm_head.weight'].T, attentions
