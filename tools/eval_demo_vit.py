#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Measures the bundled demo ViT through the engine: accuracy on held-out generated shapes, and how much of the
[CLS] token's attention (per head, and through attention rollout) falls on the object.

usage: tools/eval_demo_vit.py ATTNSCOPE_CLI MODEL_DIR [--images N] [--seed S] [--json OUT]

Held-out images come from tools/train/shapes_gen.py with seed S + 1 (S = the training seed, 1234; training draws from
S itself). Per image it runs `attnscope-cli classify`, `attention --image` (attn.L{l}.npy) and `rollout --image`.
A patch counts by the fraction of its pixels that belong to the object mask:
  object share of a head  = sum_p attn[CLS -> patch p] * objfrac(p) / sum_p attn[CLS -> patch p]
  object share of rollout = the same with the rollout map
"uniform" is the share a map spreading evenly over the patches would give (the object's area fraction).
Needs numpy only (no torch)."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "train"))
import shapes_gen  # noqa: E402


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd[:3])} failed: {r.stderr.strip()}")
    return r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("model")
    ap.add_argument("--images", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--json")
    args = ap.parse_args()
    cfg = json.load(open(os.path.join(args.model, "config.json")))
    p = cfg["patch_size"]
    grid = cfg["image_size"] // p

    correct, head_share, rollout_share, uniform = 0, 0.0, 0.0, 0.0
    images = shapes_gen.generate(args.images, args.seed + 1)
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "image.png")
        for img, mask, label in images:
            shapes_gen.write_png(png, img)
            top = run([args.cli, "classify", args.model, "--image", png, "--top-k", "1"]).split()[0]
            correct += top == shapes_gen.CLASSES[label]
            objfrac = mask.reshape(grid, p, grid, p).mean(axis=(1, 3)).reshape(-1)
            uniform += objfrac.mean()
            out = os.path.join(tmp, "attn")
            run([args.cli, "attention", args.model, "--image", png, "--out", out])
            layers = sorted(f for f in os.listdir(out) if f.startswith("attn.L"))
            attn = np.stack([np.load(os.path.join(out, f"attn.L{l}.npy")) for l in range(len(layers))])
            cls = attn[:, :, 0, 1:]  # [L, H, patches]
            head_share = head_share + (cls * objfrac).sum(-1) / cls.sum(-1)
            run([args.cli, "rollout", args.model, "--image", png, "--out", os.path.join(tmp, "rollout.npy")])
            roll = np.load(os.path.join(tmp, "rollout.npy")).reshape(-1)
            rollout_share += float((roll * objfrac).sum() / roll.sum())
    n = len(images)
    head_share = head_share / n
    l, h = np.unravel_index(np.argmax(head_share), head_share.shape)
    report = {"images": n, "accuracy": correct / n, "best_head": f"L{l} H{h}",
              "best_head_share": float(head_share[l, h]),
              "last_layer_mean_share": float(head_share[-1].mean()), "rollout_share": rollout_share / n,
              "uniform_share": uniform / n, "per_head_share": head_share.round(4).tolist()}
    print(f"{args.model}: {n} held-out images")
    print(f"accuracy {report['accuracy']:.3f}")
    print(f"[CLS] attention on the object: best head {report['best_head']} {report['best_head_share']:.3f}, "
          f"last-layer head mean {report['last_layer_mean_share']:.3f}; rollout {report['rollout_share']:.3f}; "
          f"uniform {report['uniform_share']:.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
