# SPDX-License-Identifier: MIT
"""A plain-PyTorch MarianMT (HF `MarianMTModel` semantics and tensor names): post-norm encoder-decoder, scaled
embeddings shared by encoder, decoder and LM head, sinusoidal positions that are not parameters (sin in the first half
of the width, cos in the second), SiLU feed-forward, final_logits_bias.

`python3 marian_torch.py FIXTURE_DIR` checks it against an HF fixture's golden logits (hf-tiny/marian)."""
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def sinusoids(n_pos, dim):
    """MarianSinusoidalPositionalEmbedding._init_weight."""
    enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)])
    out = np.zeros((n_pos, dim), dtype=np.float32)
    half = dim // 2 if dim % 2 == 0 else dim // 2 + 1
    out[:, :half] = np.sin(enc[:, 0::2])
    out[:, half:] = np.cos(enc[:, 1::2])
    return torch.tensor(out)


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h, self.hd = heads, d // heads
        self.q_proj, self.k_proj = nn.Linear(d, d), nn.Linear(d, d)
        self.v_proj, self.out_proj = nn.Linear(d, d), nn.Linear(d, d)

    def forward(self, x, kv, mask=None, keep=None):
        """mask: additive [.., Tq, Tk]; keep: if a list, the probabilities are appended to it."""
        B, T, D = x.shape
        S = kv.shape[1]
        q = (self.q_proj(x) * self.hd ** -0.5).view(B, T, self.h, self.hd).transpose(1, 2)
        k = self.k_proj(kv).view(B, S, self.h, self.hd).transpose(1, 2)
        v = self.v_proj(kv).view(B, S, self.h, self.hd).transpose(1, 2)
        scores = q @ k.transpose(-1, -2)
        if mask is not None:
            scores = scores + mask
        p = scores.softmax(-1)
        if keep is not None:
            keep.append(p)
        return self.out_proj((p @ v).transpose(1, 2).reshape(B, T, D))


class EncoderLayer(nn.Module):
    def __init__(self, d, heads, ffn):
        super().__init__()
        self.self_attn = Attention(d, heads)
        self.self_attn_layer_norm = nn.LayerNorm(d)
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.final_layer_norm = nn.LayerNorm(d)

    def forward(self, x, mask, keep=None):
        x = self.self_attn_layer_norm(x + self.self_attn(x, x, mask, keep))
        return self.final_layer_norm(x + self.fc2(F.silu(self.fc1(x))))


class DecoderLayer(nn.Module):
    def __init__(self, d, heads, ffn):
        super().__init__()
        self.self_attn = Attention(d, heads)
        self.self_attn_layer_norm = nn.LayerNorm(d)
        self.encoder_attn = Attention(d, heads)
        self.encoder_attn_layer_norm = nn.LayerNorm(d)
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.final_layer_norm = nn.LayerNorm(d)

    def forward(self, x, memory, self_mask, cross_mask, keep=None):
        x = self.self_attn_layer_norm(x + self.self_attn(x, x, self_mask))
        x = self.encoder_attn_layer_norm(x + self.encoder_attn(x, memory, cross_mask, keep))
        return self.final_layer_norm(x + self.fc2(F.silu(self.fc1(x))))


class Stack(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = nn.ModuleList(layers)


class Body(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg["d_model"]
        self.shared = nn.Embedding(cfg["vocab_size"], d)
        self.encoder = Stack([EncoderLayer(d, cfg["encoder_attention_heads"], cfg["encoder_ffn_dim"])
                              for _ in range(cfg["encoder_layers"])])
        self.decoder = Stack([DecoderLayer(d, cfg["decoder_attention_heads"], cfg["decoder_ffn_dim"])
                              for _ in range(cfg["decoder_layers"])])


class Marian(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.model = Body(cfg)
        self.register_buffer("final_logits_bias", torch.zeros(1, cfg["vocab_size"]))
        self.register_buffer("positions", sinusoids(cfg["max_position_embeddings"], cfg["d_model"]), persistent=False)
        self.scale = math.sqrt(cfg["d_model"]) if cfg.get("scale_embedding", False) else 1.0

    def embed(self, ids):
        return self.model.shared(ids) * self.scale + self.positions[: ids.shape[1]]

    def encode(self, src, src_pad=None, keep=None):
        """src [B, S]; src_pad [B, S] bool (True = padding)."""
        mask = None if src_pad is None else src_pad[:, None, None, :].float() * -1e9
        x = self.embed(src)
        for layer in self.model.encoder.layers:
            x = layer(x, mask, keep)
        return x

    def decode(self, tgt_in, memory, src_pad=None, keep=None):
        """Teacher-forced logits [B, T, V] for decoder inputs tgt_in [B, T]; keep collects cross-attention."""
        T = tgt_in.shape[1]
        causal = torch.full((T, T), -1e9).triu(1)
        cross = None if src_pad is None else src_pad[:, None, None, :].float() * -1e9
        x = self.embed(tgt_in)
        for layer in self.model.decoder.layers:
            x = layer(x, memory, causal, cross, keep)
        return x @ self.model.shared.weight.t() + self.final_logits_bias

    def forward(self, src, tgt_in, src_pad=None):
        return self.decode(tgt_in, self.encode(src, src_pad), src_pad)

    @torch.no_grad()
    def greedy(self, src, max_new=40):
        """Greedy ids after decoder_start_token_id, EOS included when produced."""
        memory = self.encode(torch.tensor([src]))
        out = [self.cfg["decoder_start_token_id"]]
        for _ in range(max_new):
            nxt = int(self.decode(torch.tensor([out]), memory)[0, -1].argmax())
            out.append(nxt)
            if nxt == self.cfg["eos_token_id"]:
                break
        return out[1:]

    def export_tensors(self):
        """HF MarianMTModel's saved tensors (tied copies and the sinusoids left out, as save_pretrained does)."""
        return {k: v.detach().numpy().astype(np.float32) for k, v in self.state_dict().items()}


def check_fixture(folder):
    import json
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import golden_check
    from safetensors_io import load_file
    cfg = json.load(open(os.path.join(folder, "config.json")))
    m = Marian(cfg)
    w = {k: torch.tensor(v) for k, v in load_file(os.path.join(folder, "model.safetensors")).items()}
    m.load_state_dict(w, strict=True)
    g = os.path.join(folder, "golden", "item0")
    src = torch.tensor(np.load(os.path.join(g, "input_ids.npy")))[None]
    tgt = torch.tensor(np.load(os.path.join(g, "decoder_input_ids.npy")))[None]
    with torch.no_grad():
        logits = m(src, tgt)[0].numpy()
    return golden_check.logits_error(logits, g)


if __name__ == "__main__":
    import golden_check
    golden_check.main(check_fixture)
