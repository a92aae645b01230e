#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Head importance of one head of a Llama-layout decoder, computed in float64 PyTorch from the safetensors alone (not
the engine, not tools/train), to check `attnscope-cli prune`'s importance.npy against.

usage: tools/check_importance_torch.py MODEL_DIR "ID ID ..." LAYER HEAD

The head is removed as HF's head_mask removes it (its attention probabilities times 0 after the softmax) and, for
comparison, mean-ablated (its output before o_proj replaced by its mean over the positions). Prints JSON: the
importance of both (mean log-probability of the actual next tokens unmodified minus ablated, nats), and per predicted
position the log-probabilities and the most likely token unmodified and with the head zeroed."""
import json
import struct
import sys

import numpy as np
import torch


def load(root):
    raw = open(f"{root}/model.safetensors", "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    return {k: torch.from_numpy(np.frombuffer(raw[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]],
                                              dtype="<f4").reshape(v["shape"]).astype(np.float64))
            for k, v in header.items() if k != "__metadata__"}


def main():
    root, ids, layer, head = sys.argv[1], [int(t) for t in sys.argv[2].split()], int(sys.argv[3]), int(sys.argv[4])
    cfg = json.load(open(f"{root}/config.json"))
    w = load(root)
    dim, heads, kv, layers = (cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"],
                              cfg["num_hidden_layers"])
    hd, eps, theta = dim // heads, cfg["rms_norm_eps"], cfg.get("rope_theta", 10000.0)
    lm_head = w.get("lm_head.weight", w["model.embed_tokens.weight"])

    def rms(x, g):
        return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * g

    def rope(x, pos):
        inv = 1.0 / theta ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd)
        f = pos[:, None] * inv[None]
        emb = torch.cat([f, f], -1)
        x1, x2 = x[..., :hd // 2], x[..., hd // 2:]
        return x * emb.cos() + torch.cat([-x2, x1], -1) * emb.sin()

    def forward(mode):
        t = len(ids)
        pos = torch.arange(t, dtype=torch.float64)
        x = w["model.embed_tokens.weight"][torch.tensor(ids)]
        causal = torch.full((t, t), float("-inf"), dtype=torch.float64).triu(1)
        for l in range(layers):
            p = f"model.layers.{l}."
            h = rms(x, w[p + "input_layernorm.weight"])
            q = (h @ w[p + "self_attn.q_proj.weight"].T).view(t, heads, hd).transpose(0, 1)
            k = (h @ w[p + "self_attn.k_proj.weight"].T).view(t, kv, hd).transpose(0, 1)
            v = (h @ w[p + "self_attn.v_proj.weight"].T).view(t, kv, hd).transpose(0, 1)
            q, k = rope(q, pos), rope(k, pos)
            k, v = k.repeat_interleave(heads // kv, 0), v.repeat_interleave(heads // kv, 0)
            a = torch.softmax(q @ k.transpose(1, 2) / hd ** 0.5 + causal, -1)
            if mode == "zero" and l == layer:
                a[head] = 0.0
            o = a @ v
            if mode == "mean" and l == layer:
                o[head] = o[head].mean(0, keepdim=True)
            x = x + o.transpose(0, 1).reshape(t, dim) @ w[p + "self_attn.o_proj.weight"].T
            h = rms(x, w[p + "post_attention_layernorm.weight"])
            gate = torch.nn.functional.silu(h @ w[p + "mlp.gate_proj.weight"].T)
            x = x + (gate * (h @ w[p + "mlp.up_proj.weight"].T)) @ w[p + "mlp.down_proj.weight"].T
        lp = torch.log_softmax(rms(x, w["model.norm.weight"]) @ lm_head.T, -1)
        return np.array([lp[i, ids[i + 1]].item() for i in range(t - 1)]), lp.argmax(-1)[:-1].tolist()

    (clean, top_clean), (zero, top_zero), (mean, _) = forward(None), forward("zero"), forward("mean")
    print(json.dumps({"importance_zero": clean.mean() - zero.mean(), "importance_mean": clean.mean() - mean.mean(),
                      "log_prob_clean": clean.round(5).tolist(), "log_prob_zero": zero.round(5).tolist(),
                      "top_clean": top_clean, "top_zero": top_zero}))


if __name__ == "__main__":
    main()
