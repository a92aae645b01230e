# SPDX-License-Identifier: MIT
"""YaRN RoPE scaling in float64: a NumPy port of transformers' _compute_yarn_parameters (modeling_rope_utils.py) and a
Llama forward with it. No HF golden has YaRN, so this is the reference that the engine's yarn (HF config and GGUF) is
checked against in check_gguf_families.py.
  dim = head_dim * partial_rotary_factor; orig = original_max_position_embeddings or max_position_embeddings;
  factor = factor, or max_position_embeddings / orig (transformers 4.57+);
  attention_factor = attention_factor, else get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim) when both
  are set, else get_mscale(factor), with get_mscale(s, m=1) = 0.1 m ln(s) + 1 for s > 1 (1 otherwise);
  d(r) = dim ln(orig / (2 pi r)) / (2 ln theta); low = d(beta_fast or 32), high = d(beta_slow or 1), floored and
  ceiled unless truncate is false, clamped to [0, dim - 1], high += 0.001 if equal;
  ramp_i = clip((i - low) / (high - low), 0, 1); extrapolation_factor_i = 1 - ramp_i;
  inv_freq_i = 1 / (factor theta^(2i/dim)) (1 - extrapolation_factor_i) + 1 / theta^(2i/dim) extrapolation_factor_i;
  cos and sin times attention_factor.
The Llama forward is phi3_reference.py's (Phi-3 is Llama's forward with q/k/v and gate/up fused), run on the
Llama weights fused the same way; check_gguf_families.py first holds it to the unscaled llama fixture's HF goldens."""
import math
import numpy as np

import phi3_reference


def yarn_parameters(cfg, scaling):
    """(inv_freq [dim / 2], attention_factor) for config.json `cfg` and its rope_scaling `scaling`."""
    base = cfg['rope_theta']
    dim = int(cfg['hidden_size'] // cfg['num_attention_heads'] * cfg.get('partial_rotary_factor', 1.0))
    orig = scaling.get('original_max_position_embeddings') or cfg['max_position_embeddings']
    factor = scaling.get('factor') or cfg['max_position_embeddings'] / orig
    attention_factor, mscale, mscale_all_dim = (scaling.get(k) for k in ('attention_factor', 'mscale', 'mscale_all_dim'))

    def get_mscale(scale, m=1.0):
        return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0

    if attention_factor is None:
        attention_factor = (get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim) if mscale and mscale_all_dim
                            else get_mscale(factor))

    def correction_dim(rotations):
        return dim * math.log(orig / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = correction_dim(scaling.get('beta_fast') or 32), correction_dim(scaling.get('beta_slow') or 1)
    if scaling.get('truncate', True):
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0, 1)
    pos_freqs = base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    extrapolation = 1 - ramp
    return 1 / (factor * pos_freqs) * (1 - extrapolation) + 1 / pos_freqs * extrapolation, attention_factor


def rope_tables(inv_freq, attention_factor, length):
    """cos, sin [length, 2 * len(inv_freq)] in HF's rotate-half layout, times the attention factor."""
    freqs = np.outer(np.arange(length, dtype=np.float64), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb) * attention_factor, np.sin(emb) * attention_factor


def llama_forward(weights, cfg, ids, scaling=None):
    """(logits, attentions) of a Llama checkpoint, with YaRN for rope_scaling `scaling` (None: plain RoPE)."""
    fused = dict(weights)
    for name in list(weights):
        if name.endswith('self_attn.q_proj.weight'):
            p = name[:-len('q_proj.weight')]
            fused[p + 'qkv_proj.weight'] = np.concatenate([weights[p + x + '_proj.weight'] for x in 'qkv'])
        if name.endswith('mlp.gate_proj.weight'):
            p = name[:-len('gate_proj.weight')]
            fused[p + 'gate_up_proj.weight'] = np.concatenate([weights[p + 'gate_proj.weight'], weights[p + 'up_proj.weight']])
    if scaling is None:
        return phi3_reference.forward(fused, cfg, ids)
    return phi3_reference.forward(fused, cfg, ids, rope=rope_tables(*yarn_parameters(cfg, scaling), len(ids)))
