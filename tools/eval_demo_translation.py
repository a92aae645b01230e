#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Measures a bundled demo translation model through the engine: translation accuracy and the alignment error rate of
its attention against the toy language's gold alignments.

usage: tools/eval_demo_translation.py ATTNSCOPE_CLI MODEL_DIR [--sentences N] [--json OUT]

MODEL_DIR is resources/models/demo-translate-marian or demo-translate-gru; its heldout.en / heldout.fr /
heldout.align are pairs the model never saw (English sentences absent from training) with gold sure/possible links.
  translation  `attnscope-cli translate MODEL --prompt EN` (greedy) against the gold French: exact match, and token
               accuracy (positions where the output word equals the gold word, over the longer of the two lengths).
               The RNN layout reads text like the PyTorch tutorial (lowercase, accents stripped), so its gold French is
               compared accent-free.
  alignment    `attnscope-cli align MODEL --src heldout.en --tgt heldout.fr --gold heldout.align --all-heads`:
               teacher-forced attention, each target word linked to its argmax source word; precision / recall / AER
               per head, the best head, and the last layer's head average.
Needs numpy only (no torch)."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import unicodedata


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd[:3])} failed: {r.stderr.strip()}")
    return r.stdout


def strip_accents(text):
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")


SCORE = re.compile(r"^(.*?)\s+precision ([\d.]+) recall ([\d.]+) AER ([\d.]+)$")


def scores(output):
    out = {}
    for line in output.splitlines():
        m = SCORE.match(line.strip())
        if m:
            out[m.group(1)] = {"precision": float(m.group(2)), "recall": float(m.group(3)), "aer": float(m.group(4))}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("model")
    ap.add_argument("--sentences", type=int, default=200)
    ap.add_argument("--json")
    args = ap.parse_args()
    rnn = json.load(open(os.path.join(args.model, "config.json"))).get("model_type") == "rnn_seq2seq"

    def lines(name):
        with open(os.path.join(args.model, name), encoding="utf-8") as f:
            return f.read().splitlines()[: args.sentences]

    en, fr, gold = lines("heldout.en"), lines("heldout.fr"), lines("heldout.align")
    exact, matched, total = 0, 0, 0
    for src, ref in zip(en, fr):
        hyp = run([args.cli, "translate", args.model, "--prompt", src]).strip()
        if rnn:
            hyp, ref = hyp.replace("<EOS>", "").strip(), strip_accents(ref)
        h, r = hyp.split(), ref.split()
        exact += h == r
        matched += sum(a == b for a, b in zip(h, r))
        total += max(len(h), len(r))

    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for name, content in (("src", en), ("tgt", fr), ("gold", gold)):
            files.append(os.path.join(tmp, name))
            with open(files[-1], "w", encoding="utf-8") as f:
                f.write("\n".join(content) + "\n")
        base = [args.cli, "align", args.model, "--src", files[0], "--tgt", files[1], "--gold", files[2],
                "--out", os.path.join(tmp, "links")]
        per_head = scores(run(base + ["--all-heads"]))
        mean = scores(run(base)) if not rnn else {}
    best_name = next(k for k in per_head if k.startswith("best "))
    report = {"sentences": len(en), "exact_match": exact / len(en), "token_accuracy": matched / total,
              "best_head": best_name[5:], "best": per_head.pop(best_name), "per_head": per_head}
    if mean:
        report["last_layer_mean"] = next(iter(mean.values()))
    print(f"{args.model}: {len(en)} held-out sentences")
    print(f"translation  exact match {report['exact_match']:.3f}  token accuracy {report['token_accuracy']:.3f}")
    b = report["best"]
    print(f"alignment    best head {report['best_head']}: precision {b['precision']:.3f} recall {b['recall']:.3f} "
          f"AER {b['aer']:.3f}")
    if mean:
        m = report["last_layer_mean"]
        print(f"             last-layer mean: precision {m['precision']:.3f} recall {m['recall']:.3f} "
              f"AER {m['aer']:.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
