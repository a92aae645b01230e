# SPDX-License-Identifier: MIT
"""A plain-PyTorch ViTForImageClassification (HF semantics and tensor names): patch convolution, [CLS] token, learned
positions, pre-norm encoder with exact GELU, final layernorm, classifier on [CLS].

`python3 vit_torch.py FIXTURE_DIR` checks it against an HF fixture's golden logits (hf-tiny/vit)."""
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Namespace(nn.Module):
    """An empty module whose children give HF's nested tensor names."""


class SelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h, self.hd = heads, d // heads
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)

    def forward(self, x, keep=None):
        B, T, D = x.shape
        q, k, v = (m(x).view(B, T, self.h, self.hd).transpose(1, 2) for m in (self.query, self.key, self.value))
        p = (q @ k.transpose(-1, -2) / self.hd ** 0.5).softmax(-1)
        if keep is not None:
            keep.append(p)
        return (p @ v).transpose(1, 2).reshape(B, T, D)


class Layer(nn.Module):
    def __init__(self, d, heads, ffn, eps):
        super().__init__()
        self.attention = Namespace()
        self.attention.attention = SelfAttention(d, heads)
        self.attention.output = Namespace()
        self.attention.output.dense = nn.Linear(d, d)
        self.intermediate = Namespace()
        self.intermediate.dense = nn.Linear(d, ffn)
        self.output = Namespace()
        self.output.dense = nn.Linear(ffn, d)
        self.layernorm_before, self.layernorm_after = nn.LayerNorm(d, eps=eps), nn.LayerNorm(d, eps=eps)

    def forward(self, x, keep=None):
        x = x + self.attention.output.dense(self.attention.attention(self.layernorm_before(x), keep))
        return x + self.output.dense(F.gelu(self.intermediate.dense(self.layernorm_after(x))))


class ViTBody(nn.Module):
    """HF ViTModel without its pooler: embeddings, encoder layers, final layernorm."""

    def __init__(self, cfg):
        super().__init__()
        d, p = cfg["hidden_size"], cfg["patch_size"]
        n = (cfg["image_size"] // p) ** 2
        eps = cfg.get("layer_norm_eps", 1e-12)
        self.embeddings = Namespace()
        self.embeddings.cls_token = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.embeddings.position_embeddings = nn.Parameter(torch.randn(1, n + 1, d) * 0.02)
        self.embeddings.patch_embeddings = Namespace()
        self.embeddings.patch_embeddings.projection = nn.Conv2d(cfg["num_channels"], d, p, stride=p)
        self.encoder = Namespace()
        self.encoder.layer = nn.ModuleList(
            [Layer(d, cfg["num_attention_heads"], cfg["intermediate_size"], eps)
             for _ in range(cfg["num_hidden_layers"])])
        self.layernorm = nn.LayerNorm(d, eps=eps)

    def forward(self, pixels, keep=None):
        """pixels [B, 3, H, W] after preprocessing -> the last hidden state [B, T, D] (after the final layernorm);
        keep collects every layer's attention [B, heads, T, T]."""
        e = self.embeddings
        x = e.patch_embeddings.projection(pixels).flatten(2).transpose(1, 2)
        x = torch.cat([e.cls_token.expand(x.shape[0], -1, -1), x], 1) + e.position_embeddings
        for layer in self.encoder.layer:
            x = layer(x, keep)
        return self.layernorm(x)


class ViT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.vit = ViTBody(cfg)
        self.classifier = nn.Linear(cfg["hidden_size"], len(cfg["id2label"]))

    def forward(self, pixels, keep=None):
        """pixels [B, 3, H, W] after preprocessing; keep collects every layer's attention [B, heads, T, T]."""
        return self.classifier(self.vit(pixels, keep)[:, 0])


def preprocess(images):
    """uint8 [B, H, W, 3] -> ViTImageProcessor's (x / 255 - 0.5) / 0.5 as [B, 3, H, W] (no resize: sizes match)."""
    x = torch.tensor(np.asarray(images), dtype=torch.float32).permute(0, 3, 1, 2)
    return (x * (1 / 255) - 0.5) / 0.5


def check_fixture(folder):
    import json
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import golden_check
    from safetensors_io import load_file
    m = ViT(json.load(open(os.path.join(folder, "config.json"))))
    m.load_state_dict({k: torch.tensor(v) for k, v in load_file(os.path.join(folder, "model.safetensors")).items()})
    g = os.path.join(folder, "golden", "item0")
    with torch.no_grad():
        logits = m(torch.tensor(np.load(os.path.join(g, "pixel_values.npy")))[None])[0].numpy()
    return golden_check.logits_error(logits, g)


if __name__ == "__main__":
    import golden_check
    golden_check.main(check_fixture)
