# SPDX-License-Identifier: MIT
"""Writes a tiny random HF VisionEncoderDecoderModel folder whose ViT encoder (width 24) is narrower than its GPT-2
decoder (width 32), so the decoder reads the image through enc_to_dec_proj, plus a forward pass computed here in NumPy
(independently of the engine and of PyTorch) as reference .npy files.

usage: /usr/bin/python3 tools/make_caption_projection_model.py OUT_DIR
Writes config.json, model.safetensors, pixel_values.npy [3, 16, 16], decoder_input_ids.npy, and the references
encoder_last_hidden_state.npy [T, 24], cross.L{l}.npy [heads, n, T], dec_attn.L{l}.npy [heads, n, n], logits.npy."""
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "train"))
from safetensors_io import save_file  # noqa: E402

ENC, DEC, IMAGE, PATCH, HEADS, LAYERS, VOCAB, POSITIONS = 24, 32, 16, 4, 4, 2, 40, 16


def layer_norm(x, w, b, eps):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * w + b


def softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def heads(x, h):
    return x.reshape(x.shape[0], h, -1).transpose(1, 0, 2)


def attend(q, k, v, causal):
    """q [n, D], k/v [m, D] -> (merged output [n, D], probabilities [heads, n, m])."""
    qh, kh, vh = heads(q, HEADS), heads(k, HEADS), heads(v, HEADS)
    s = qh @ kh.transpose(0, 2, 1) / math.sqrt(qh.shape[-1])
    if causal:
        s = np.where(np.tril(np.ones(s.shape[1:], bool)), s, -np.inf)
    p = softmax(s)
    return (p @ vh).transpose(1, 0, 2).reshape(q.shape[0], -1), p


def gelu(x):  # exact GELU (ViT)
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def gelu_new(x):  # GPT-2's tanh approximation
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def weights(rng):
    w = {}

    def put(name, *shape, scale=0.3):
        w[name] = (rng.normal(0, scale, shape)).astype(np.float64)

    def norm(name, d):
        w[name + ".weight"] = 1 + rng.normal(0, 0.1, d)
        w[name + ".bias"] = rng.normal(0, 0.1, d)

    e = "encoder.embeddings."
    put(e + "cls_token", 1, 1, ENC)
    put(e + "position_embeddings", 1, (IMAGE // PATCH) ** 2 + 1, ENC)
    put(e + "patch_embeddings.projection.weight", ENC, 3, PATCH, PATCH, scale=0.1)
    put(e + "patch_embeddings.projection.bias", ENC, scale=0.1)
    for l in range(LAYERS):
        p = f"encoder.encoder.layer.{l}."
        for n in ("query", "key", "value"):
            put(p + f"attention.attention.{n}.weight", ENC, ENC)
            put(p + f"attention.attention.{n}.bias", ENC, scale=0.1)
        put(p + "attention.output.dense.weight", ENC, ENC)
        put(p + "attention.output.dense.bias", ENC, scale=0.1)
        put(p + "intermediate.dense.weight", 2 * ENC, ENC)
        put(p + "intermediate.dense.bias", 2 * ENC, scale=0.1)
        put(p + "output.dense.weight", ENC, 2 * ENC)
        put(p + "output.dense.bias", ENC, scale=0.1)
        norm(p + "layernorm_before", ENC)
        norm(p + "layernorm_after", ENC)
    norm("encoder.layernorm", ENC)
    put("enc_to_dec_proj.weight", DEC, ENC)
    put("enc_to_dec_proj.bias", DEC, scale=0.1)
    t = "decoder.transformer."
    put(t + "wte.weight", VOCAB, DEC)
    put(t + "wpe.weight", POSITIONS, DEC, scale=0.1)
    for l in range(LAYERS):  # GPT-2 Conv1D weights are [in, out]
        p = f"{t}h.{l}."
        for name, i, o in (("attn.c_attn", DEC, 3 * DEC), ("attn.c_proj", DEC, DEC),
                           ("crossattention.q_attn", DEC, DEC), ("crossattention.c_attn", DEC, 2 * DEC),
                           ("crossattention.c_proj", DEC, DEC), ("mlp.c_fc", DEC, 4 * DEC), ("mlp.c_proj", 4 * DEC, DEC)):
            put(p + name + ".weight", i, o)
            put(p + name + ".bias", o, scale=0.1)
        for n in ("ln_1", "ln_cross_attn", "ln_2"):
            norm(p + n, DEC)
    norm(t + "ln_f", DEC)
    return w


def forward(w, pixels, ids):
    e = "encoder.embeddings."
    g = IMAGE // PATCH
    patches = pixels.reshape(3, g, PATCH, g, PATCH).transpose(1, 3, 0, 2, 4).reshape(g * g, -1)
    x = patches @ w[e + "patch_embeddings.projection.weight"].reshape(ENC, -1).T + w[e + "patch_embeddings.projection.bias"]
    x = np.concatenate([w[e + "cls_token"][0], x]) + w[e + "position_embeddings"][0]
    lin = lambda x, n: x @ w[n + ".weight"].T + w[n + ".bias"]  # noqa: E731
    for l in range(LAYERS):
        p = f"encoder.encoder.layer.{l}."
        h = layer_norm(x, w[p + "layernorm_before.weight"], w[p + "layernorm_before.bias"], 1e-12)
        a = p + "attention.attention."
        o, _ = attend(lin(h, a + "query"), lin(h, a + "key"), lin(h, a + "value"), False)
        x = x + lin(o, p + "attention.output.dense")
        h = layer_norm(x, w[p + "layernorm_after.weight"], w[p + "layernorm_after.bias"], 1e-12)
        x = x + lin(gelu(lin(h, p + "intermediate.dense")), p + "output.dense")
    last = layer_norm(x, w["encoder.layernorm.weight"], w["encoder.layernorm.bias"], 1e-12)
    states = lin(last, "enc_to_dec_proj")

    t = "decoder.transformer."
    conv = lambda x, n: x @ w[n + ".weight"] + w[n + ".bias"]  # noqa: E731
    ln = lambda x, n: layer_norm(x, w[n + ".weight"], w[n + ".bias"], 1e-5)  # noqa: E731
    y = w[t + "wte.weight"][ids] + w[t + "wpe.weight"][: len(ids)]
    self_probs, cross_probs = [], []
    for l in range(LAYERS):
        p = f"{t}h.{l}."
        q, k, v = np.split(conv(ln(y, p + "ln_1"), p + "attn.c_attn"), 3, -1)
        o, sp = attend(q, k, v, True)
        y = y + conv(o, p + "attn.c_proj")
        k, v = np.split(conv(states, p + "crossattention.c_attn"), 2, -1)
        o, cp = attend(conv(ln(y, p + "ln_cross_attn"), p + "crossattention.q_attn"), k, v, False)
        y = y + conv(o, p + "crossattention.c_proj")
        y = y + conv(gelu_new(conv(ln(y, p + "ln_2"), p + "mlp.c_fc")), p + "mlp.c_proj")
        self_probs.append(sp)
        cross_probs.append(cp)
    logits = ln(y, t + "ln_f") @ w[t + "wte.weight"].T
    return last, self_probs, cross_probs, logits


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(19)
    w = weights(rng)
    save_file({k: v.astype(np.float32) for k, v in w.items()}, os.path.join(out, "model.safetensors"), {"format": "pt"})
    vit = {"model_type": "vit", "hidden_size": ENC, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
           "intermediate_size": 2 * ENC, "hidden_act": "gelu", "image_size": IMAGE, "patch_size": PATCH,
           "num_channels": 3, "qkv_bias": True, "layer_norm_eps": 1e-12}
    gpt2 = {"model_type": "gpt2", "n_embd": DEC, "n_layer": LAYERS, "n_head": HEADS, "n_positions": POSITIONS,
            "vocab_size": VOCAB, "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5,
            "add_cross_attention": True, "is_decoder": True, "bos_token_id": 0, "eos_token_id": 1}
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump({"architectures": ["VisionEncoderDecoderModel"], "model_type": "vision-encoder-decoder",
                   "decoder_start_token_id": 0, "encoder": vit, "decoder": gpt2}, f, indent=1)
    # The reference runs in float64 on the float32 weights the engine reads.
    w = {k: v.astype(np.float32).astype(np.float64) for k, v in w.items()}
    pixels = rng.uniform(-1, 1, (3, IMAGE, IMAGE)).astype(np.float32)
    ids = np.array([0, 5, 17, 3, 29, 11], dtype=np.int64)
    np.save(os.path.join(out, "pixel_values.npy"), pixels)
    np.save(os.path.join(out, "decoder_input_ids.npy"), ids)
    last, self_probs, cross_probs, logits = forward(w, pixels.astype(np.float64), ids)
    np.save(os.path.join(out, "encoder_last_hidden_state.npy"), last.astype(np.float32))
    for l in range(LAYERS):
        np.save(os.path.join(out, f"dec_attn.L{l}.npy"), self_probs[l].astype(np.float32))
        np.save(os.path.join(out, f"cross.L{l}.npy"), cross_probs[l].astype(np.float32))
    np.save(os.path.join(out, "logits.npy"), logits.astype(np.float32))


if __name__ == "__main__":
    main()
