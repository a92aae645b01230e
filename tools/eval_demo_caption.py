#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Measures the bundled demo captioner through the engine: exact-match rate of its greedy captions on held-out scenes,
and how much of each object word's cross-attention falls on that object.

usage: tools/eval_demo_caption.py ATTNSCOPE_CLI MODEL_DIR [--images N] [--seed S] [--json OUT]

Held-out scenes come from tools/train/caption_scenes.py with seed S + 1 (S = the training seed, 1234; training draws
from S itself). Per scene it runs `attnscope-cli caption --image` and, with the true caption teacher-forced,
`attention --image --decoder-tokens` (cross.L{l}.npy, enc_attn.L{l}.npy). For an object word (its colour or its
shape) the row is the decoder step that generates it; a patch counts by the fraction of its pixels inside the object:
  share of a map = sum_p map[p] * objfrac(p) / sum_p map[p]   (p over the patches; [CLS] left out)
  best head      = the (layer, head) with the highest mean share over all object words
  head mean      = the last decoder layer's mean over heads
  rollout        = the head mean carried through the encoder: attention rollout (Abnar & Zuidema: 0.5 A + 0.5 I, rows
                   renormalised, head mean per layer) maps each encoder token back onto the patches it mixes
  image share    = what a map spreading evenly over the patches gets (the object's area fraction)
Needs numpy only (no torch)."""
import argparse
import json
import os
import sys
import tempfile

import numpy as np

from eval_demo_vit import run

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "train"))
import bpe  # noqa: E402
import caption_scenes  # noqa: E402


def rollout(layers):
    """layers: encoder attention per layer [heads, T, T] -> [T, T] (rows: output tokens, columns: input tokens)."""
    joint = None
    for a in layers:
        a = 0.5 * a.mean(0) + 0.5 * np.eye(a.shape[-1])
        a = a / a.sum(-1, keepdims=True)
        joint = a if joint is None else a @ joint
    return joint


def share(m, objfrac):
    return float((m * objfrac).sum() / m.sum())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("model")
    ap.add_argument("--images", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--json")
    args = ap.parse_args()
    cfg = json.load(open(os.path.join(args.model, "config.json")))
    p = cfg["encoder"]["patch_size"]
    grid = cfg["encoder"]["image_size"] // p
    vocab = json.load(open(os.path.join(args.model, "vocab.json"), encoding="utf-8"))
    merges = [tuple(line.split()) for line in open(os.path.join(args.model, "merges.txt"), encoding="utf-8")
              if not line.startswith("#version")]
    enc = bpe.Encoder(vocab, merges)
    start = cfg["decoder_start_token_id"]

    scenes = caption_scenes.generate(args.images, args.seed + 1)
    exact, words = 0, 0
    head_share, mean_share, roll_share, uniform = 0.0, 0.0, 0.0, 0.0
    with tempfile.TemporaryDirectory() as tmp:
        png, out = os.path.join(tmp, "scene.png"), os.path.join(tmp, "attn")
        for img, caption, objects in scenes:
            caption_scenes.shapes_gen.write_png(png, img)
            exact += run([args.cli, "caption", args.model, "--image", png]).strip() == caption
            ids = enc.encode(caption)
            run([args.cli, "attention", args.model, "--image", png, "--decoder-tokens",
                 ",".join(str(i) for i in [start] + ids), "--backend", "cpu", "--out", out])
            L = cfg["decoder"]["n_layer"]
            cross = np.stack([np.load(os.path.join(out, f"cross.L{l}.npy")) for l in range(L)])  # [L, H, T, S]
            joint = rollout([np.load(os.path.join(out, f"enc_attn.L{l}.npy")) for l in range(cfg["encoder"]["num_hidden_layers"])])
            for o in objects:
                objfrac = o["mask"].reshape(grid, p, grid, p).mean(axis=(1, 3)).reshape(-1)
                for k in (o["colour_word"], o["shape_word"]):
                    rows = cross[:, :, k, :]  # the step that generates word k
                    head_share = head_share + (rows[..., 1:] * objfrac).sum(-1) / rows[..., 1:].sum(-1)
                    mean_row = rows[-1].mean(0)
                    mean_share += share(mean_row[1:], objfrac)
                    roll_share += share((mean_row @ joint)[1:], objfrac)
                    uniform += float(objfrac.mean())
                    words += 1
    head_share = head_share / words
    l, h = np.unravel_index(np.argmax(head_share), head_share.shape)
    report = {"images": len(scenes), "exact_match": exact / len(scenes), "object_words": words,
              "best_head": f"L{l} H{h}", "best_head_share": float(head_share[l, h]),
              "last_layer_mean_share": mean_share / words, "rollout_share": roll_share / words,
              "image_share": uniform / words, "per_head_share": head_share.round(4).tolist()}
    print(f"{args.model}: {len(scenes)} held-out scenes, {words} object words")
    print(f"caption exact match {report['exact_match']:.3f}")
    print(f"cross-attention on the object: best head {report['best_head']} {report['best_head_share']:.3f}, "
          f"last-layer head mean {report['last_layer_mean_share']:.3f}, rollout {report['rollout_share']:.3f}; "
          f"image share {report['image_share']:.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
