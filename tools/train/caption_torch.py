# SPDX-License-Identifier: MIT
"""A plain-PyTorch HF VisionEncoderDecoderModel: vit_torch.py's ViT encoder (a ViTModel under `encoder.`) and a GPT-2
decoder with cross-attention (GPT2LMHeadModel with add_cross_attention under `decoder.`), HF semantics and tensor
names: Conv1D weights [in, out], pre-LN blocks with ln_cross_attn + crossattention (q_attn on the decoder stream,
c_attn = k|v on the encoder's last hidden state), gelu_new, LM head tied to wte.

`python3 caption_torch.py FIXTURE_DIR` checks it against hf-tiny/vision-encoder-decoder's golden logits."""
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from vit_torch import Namespace, ViTBody


class Conv1D(nn.Module):
    """GPT-2's transposed Linear: weight [in, out]."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_in, n_out) * 0.02)
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return x @ self.weight + self.bias


def attend(q, k, v, heads, causal, keep=None):
    B, T, D = q.shape
    S = k.shape[1]
    split = lambda x, n: x.view(B, n, heads, D // heads).transpose(1, 2)  # noqa: E731
    s = split(q, T) @ split(k, S).transpose(-1, -2) / math.sqrt(D // heads)
    if causal:
        s = s.masked_fill(torch.ones(T, S, dtype=torch.bool).triu(1), float("-inf"))
    p = s.softmax(-1)
    if keep is not None:
        keep.append(p)
    return (p @ split(v, S)).transpose(1, 2).reshape(B, T, D)


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln_1, self.ln_cross_attn, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = Namespace()
        self.attn.c_attn, self.attn.c_proj = Conv1D(d, 3 * d), Conv1D(d, d)
        self.crossattention = Namespace()
        self.crossattention.q_attn, self.crossattention.c_attn = Conv1D(d, d), Conv1D(d, 2 * d)
        self.crossattention.c_proj = Conv1D(d, d)
        self.mlp = Namespace()
        self.mlp.c_fc, self.mlp.c_proj = Conv1D(d, 4 * d), Conv1D(4 * d, d)

    def forward(self, x, memory, keep=None):
        q, k, v = self.attn.c_attn(self.ln_1(x)).chunk(3, -1)
        x = x + self.attn.c_proj(attend(q, k, v, self.heads, True))
        k, v = self.crossattention.c_attn(memory).chunk(2, -1)
        q = self.crossattention.q_attn(self.ln_cross_attn(x))
        x = x + self.crossattention.c_proj(attend(q, k, v, self.heads, False, keep))
        return x + self.mlp.c_proj(F.gelu(self.mlp.c_fc(self.ln_2(x)), approximate="tanh"))


class Captioner(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        d = cfg["decoder"]
        self.encoder = ViTBody(cfg["encoder"])
        Dd = d["n_embd"]
        self.decoder = Namespace()
        self.decoder.transformer = Namespace()
        t = self.decoder.transformer
        t.wte = nn.Embedding(d["vocab_size"], Dd)
        t.wpe = nn.Embedding(d["n_positions"], Dd)
        nn.init.normal_(t.wte.weight, std=0.02)
        nn.init.normal_(t.wpe.weight, std=0.01)
        t.h = nn.ModuleList([Block(Dd, d["n_head"]) for _ in range(d["n_layer"])])
        t.ln_f = nn.LayerNorm(Dd)

    def encode(self, pixels, keep=None):
        """pixels [B, 3, H, W] -> the ViT's last hidden state [B, T, D] (after its final layernorm)."""
        return self.encoder(pixels, keep)

    def decode(self, ids, memory, keep=None):
        """Teacher-forced logits [B, T, V]; keep collects each layer's cross-attention [B, heads, T, S]."""
        t = self.decoder.transformer
        x = t.wte(ids) + t.wpe(torch.arange(ids.shape[1]))
        for block in t.h:
            x = block(x, memory, keep)
        return t.ln_f(x) @ t.wte.weight.t()

    @torch.no_grad()
    def greedy(self, pixels, max_new):
        """Greedy ids after decoder_start_token_id for each image, EOS included when produced."""
        memory = self.encode(pixels)
        start, eos = self.cfg["decoder_start_token_id"], self.cfg["decoder"]["eos_token_id"]
        out = []
        for b in range(pixels.shape[0]):
            ids = [start]
            for _ in range(max_new):
                nxt = int(self.decode(torch.tensor([ids]), memory[b:b + 1])[0, -1].argmax())
                ids.append(nxt)
                if nxt == eos:
                    break
            out.append(ids[1:])
        return out

    def export_tensors(self):
        """The tensors HF's save_pretrained writes (the LM head is tied to wte and left out)."""
        return {k: v.detach().numpy().astype(np.float32) for k, v in self.state_dict().items()}


def check_fixture(folder):
    import json
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import golden_check
    from safetensors_io import load_file
    m = Captioner(json.load(open(os.path.join(folder, "config.json"))))
    w = {k: torch.tensor(v) for k, v in load_file(os.path.join(folder, "model.safetensors")).items()
         if not k.startswith("encoder.pooler.")}
    m.load_state_dict(w, strict=True)
    g = os.path.join(folder, "golden", "item0")
    with torch.no_grad():
        memory = m.encode(torch.tensor(np.load(os.path.join(g, "pixel_values.npy")))[None])
        logits = m.decode(torch.tensor(np.load(os.path.join(g, "decoder_input_ids.npy")))[None], memory)[0].numpy()
    return golden_check.logits_error(logits, g)


if __name__ == "__main__":
    import golden_check
    golden_check.main(check_fixture)
