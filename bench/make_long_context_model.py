#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a random-weight GPT-2- or Llama-shaped model with many positions, for long-input benchmarks and tests.

usage: make_long_context_model.py OUT_DIR [--family gpt2|llama] [--layers L] [--heads H] [--kv-heads H]
           [--width D] [--positions P] [--tokenizer DIR] [--seed S]
           [--text-tokens N --text-file FILE]

The tokenizer is the genuine GPT-2 byte-level BPE (../shared/models/gpt2-bpe-tokenizer: encoder.json and vocab.bpe,
copied as vocab.json and merges.txt), so the vocabulary is 50257. Weights are N(0, 0.02) float32 (norm weights 1), in
model.safetensors, written without torch. With --text-tokens, also writes a text of exactly N GPT-2 tokens (words that
are one token each, such as " the"), for --input-file / --prompt-file.
"""
import argparse
import json
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "train"))
from safetensors_io import save_file  # noqa: E402  (the repository's own writer, no torch needed)

ONE_TOKEN_WORDS = [" the", " cat", " sat", " on", " a", " mat", " and", " then", " it", " ran", " to", " house",
                   " of", " dog", " in", " garden", " with", " big", " red", " ball", " he", " she", " was", " very"]


def gpt2(args, rng, vocab):
    d, L, P = args.width, args.layers, args.positions
    w = lambda *shape: rng.normal(0.0, 0.02, shape).astype(np.float32)
    t = {"wte.weight": w(vocab, d), "wpe.weight": w(P, d),
         "ln_f.weight": np.ones(d, np.float32), "ln_f.bias": np.zeros(d, np.float32)}
    for l in range(L):
        p = f"h.{l}."
        t[p + "ln_1.weight"] = np.ones(d, np.float32)
        t[p + "ln_1.bias"] = np.zeros(d, np.float32)
        t[p + "attn.c_attn.weight"] = w(d, 3 * d)  # Conv1D: [in, out]
        t[p + "attn.c_attn.bias"] = w(3 * d)
        t[p + "attn.c_proj.weight"] = w(d, d)
        t[p + "attn.c_proj.bias"] = w(d)
        t[p + "ln_2.weight"] = np.ones(d, np.float32)
        t[p + "ln_2.bias"] = np.zeros(d, np.float32)
        t[p + "mlp.c_fc.weight"] = w(d, 4 * d)
        t[p + "mlp.c_fc.bias"] = w(4 * d)
        t[p + "mlp.c_proj.weight"] = w(4 * d, d)
        t[p + "mlp.c_proj.bias"] = w(d)
    config = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": vocab, "n_embd": d,
              "n_head": args.heads, "n_layer": L, "n_positions": P, "n_ctx": P, "n_inner": None,
              "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5, "bos_token_id": 50256,
              "eos_token_id": 50256, "torch_dtype": "float32"}
    return t, config


def llama(args, rng, vocab):
    d, L, H = args.width, args.layers, args.heads
    kv = args.kv_heads or H
    hd = d // H
    inter = 4 * d
    w = lambda *shape: rng.normal(0.0, 0.02, shape).astype(np.float32)
    t = {"model.embed_tokens.weight": w(vocab, d), "model.norm.weight": np.ones(d, np.float32),
         "lm_head.weight": w(vocab, d)}
    for l in range(L):
        p = f"model.layers.{l}."
        t[p + "input_layernorm.weight"] = np.ones(d, np.float32)
        t[p + "post_attention_layernorm.weight"] = np.ones(d, np.float32)
        t[p + "self_attn.q_proj.weight"] = w(H * hd, d)
        t[p + "self_attn.k_proj.weight"] = w(kv * hd, d)
        t[p + "self_attn.v_proj.weight"] = w(kv * hd, d)
        t[p + "self_attn.o_proj.weight"] = w(d, H * hd)
        t[p + "mlp.gate_proj.weight"] = w(inter, d)
        t[p + "mlp.up_proj.weight"] = w(inter, d)
        t[p + "mlp.down_proj.weight"] = w(d, inter)
    config = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": vocab, "hidden_size": d,
              "intermediate_size": inter, "num_hidden_layers": L, "num_attention_heads": H,
              "num_key_value_heads": kv, "max_position_embeddings": args.positions, "rms_norm_eps": 1e-5,
              "rope_theta": 10000.0, "hidden_act": "silu", "tie_word_embeddings": False,
              "bos_token_id": 50256, "eos_token_id": 50256, "torch_dtype": "float32"}
    return t, config


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--family", choices=["gpt2", "llama"], default="gpt2")
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--heads", type=int, default=12)
    parser.add_argument("--kv-heads", type=int, default=0)
    parser.add_argument("--width", type=int, default=768)
    parser.add_argument("--positions", type=int, default=8192)
    parser.add_argument("--tokenizer", default=os.path.join(here, "..", "..", "shared", "models",
                                                            "gpt2-bpe-tokenizer"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--text-tokens", type=int, default=0)
    parser.add_argument("--text-file", default="")
    args = parser.parse_args()
    if args.width % args.heads:
        parser.error("--width must be a multiple of --heads")
    encoder = os.path.join(args.tokenizer, "encoder.json")
    if not os.path.exists(encoder):
        parser.error(f"no GPT-2 vocabulary at {encoder}")
    os.makedirs(args.out, exist_ok=True)
    shutil.copyfile(encoder, os.path.join(args.out, "vocab.json"))
    shutil.copyfile(os.path.join(args.tokenizer, "vocab.bpe"), os.path.join(args.out, "merges.txt"))
    with open(encoder) as f:
        vocab = len(json.load(f))
    rng = np.random.default_rng(args.seed)
    tensors, config = (gpt2 if args.family == "gpt2" else llama)(args, rng, vocab)
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    with open(os.path.join(args.out, "tokenizer_config.json"), "w") as f:
        json.dump({"model_max_length": args.positions}, f)
    save_file(tensors, os.path.join(args.out, "model.safetensors"))
    if args.text_tokens:
        words = [ONE_TOKEN_WORDS[(i * 7 + i // 5) % len(ONE_TOKEN_WORDS)] for i in range(args.text_tokens)]
        with open(args.text_file or os.path.join(args.out, f"text-{args.text_tokens}.txt"), "w") as f:
            f.write("".join(words))


if __name__ == "__main__":
    main()
