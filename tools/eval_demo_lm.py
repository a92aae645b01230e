#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Scores every head of the bundled demo decoder against the story generator's ground truth, through the engine.

usage: tools/eval_demo_lm.py ATTNSCOPE_CLI MODEL_DIR [--stories N] [--json OUT]

For each held-out story (MODEL_DIR/heldout_stories.jsonl) it runs `attnscope-cli attention MODEL --tokens ...` and reads
attn.L{l}.npy. Scores (mean attention mass on the ground-truth target, per layer/head):
  induction    from the k-th token of a repeated span's second copy to the (k+1)-th token of its first copy
  coreference  from a pronoun's token to the tokens of its antecedent (the last mention of the character)
  coref-next   the same from the token before the pronoun, where a decoder must already know who comes next
  agreement    from "is"/"are" to the tokens of its subject's head noun
  previous     from every token to the token before it
A uniform-attention baseline (mass a head would give the target by attending evenly to all visible keys) is printed
beside each best head, so a score can be read against chance."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "train"))
import bpe  # noqa: E402


def tokenize_with_spans(enc, text):
    ids, spans = [], []
    for m in bpe.PRETOKENIZE.finditer(text):
        word = "".join(bpe.BYTE_MAP[b] for b in m.group().encode("utf-8"))
        pos = m.start()
        for sym in enc._bpe(word):
            ids.append(enc.vocab[sym])
            spans.append((pos, pos + len(sym)))  # ASCII corpus: one byte-char per text char
            pos += len(sym)
    return ids, spans


def tokens_in(spans, span):
    return [i for i, (s, e) in enumerate(spans) if s < span[1] and e > span[0]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("model")
    ap.add_argument("--stories", type=int, default=100)
    ap.add_argument("--json")
    args = ap.parse_args()
    vocab = json.load(open(os.path.join(args.model, "vocab.json"), encoding="utf-8"))
    merges = [tuple(l.split()) for l in open(os.path.join(args.model, "merges.txt"), encoding="utf-8").read().splitlines()[1:] if l]
    enc = bpe.Encoder(vocab, merges)
    stories = [json.loads(l) for l in open(os.path.join(args.model, "heldout_stories.jsonl"))][: args.stories]

    sums, counts, chance = {}, {}, {}

    def add(task, attn, q, targets):
        if not targets:
            return
        sums[task] = sums.get(task, 0) + attn[:, :, q, targets].sum(-1)
        counts[task] = counts.get(task, 0) + 1
        chance[task] = chance.get(task, 0) + len(targets) / (q + 1)

    for story in stories:
        ids, spans = tokenize_with_spans(enc, story["text"])
        with tempfile.TemporaryDirectory() as out:
            r = subprocess.run([args.cli, "attention", args.model, "--tokens", ",".join(map(str, ids)), "--out", out],
                               capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"attnscope-cli failed: {r.stderr.strip()}")
            layers = sorted(f for f in os.listdir(out) if f.startswith("attn.L"))
            attn = np.stack([np.load(os.path.join(out, f"attn.L{l}.npy")) for l in range(len(layers))])  # [L, H, T, T]
        for c in story["coref"]:
            pron, ante = tokens_in(spans, c["pronoun"])[0], tokens_in(spans, c["antecedent"])
            add("coreference", attn, pron, ante)
            add("coref-next", attn, pron - 1, ante)
        for a in story["agreement"]:
            add("agreement", attn, tokens_in(spans, a["verb"])[0], tokens_in(spans, a["subject"]))
        for rep in story["repeats"]:
            first, second = tokens_in(spans, rep["first"]), tokens_in(spans, rep["second"])
            for k in range(min(len(first), len(second)) - 1):
                add("induction", attn, second[k], [first[k + 1]])
        for q in range(1, len(ids)):
            add("previous", attn, q, [q - 1])

    report = {}
    print(f"{len(stories)} held-out stories; score = mean attention on the ground-truth target")
    print(f"{'task':<12} {'best head':>10} {'score':>7} {'uniform':>8} {'events':>7}")
    for task in ["induction", "coreference", "coref-next", "agreement", "previous"]:
        if task not in sums:
            continue
        mean = sums[task] / counts[task]
        l, h = np.unravel_index(np.argmax(mean), mean.shape)
        base = chance[task] / counts[task]
        report[task] = {"layer": int(l), "head": int(h), "score": float(mean[l, h]), "uniform": float(base),
                        "events": counts[task], "per_head": mean.round(4).tolist()}
        print(f"{task:<12} {f'L{l} H{h}':>10} {mean[l, h]:7.3f} {base:8.3f} {counts[task]:7d}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
