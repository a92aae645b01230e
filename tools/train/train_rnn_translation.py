# SPDX-License-Identifier: MIT
"""Trains the bundled demo GRU seq2seq with Bahdanau attention on the toy English -> French language
(translation_gen.py) and exports it in the engine's RNN layout (docs/rnn-seq2seq-format.md: config.json with
model_type "rnn_seq2seq" + model.safetensors with PyTorch nn.GRU / nn.Linear names).

usage: python3 tools/train/train_rnn_translation.py OUT_DIR [--steps N] [--seed S]
The layout's text handling is the PyTorch tutorial's (lowercase, accents stripped), so the French vocabulary is
accent-free ("a cote de"). Writes config.json, model.safetensors, reference.json (greedy translations by this PyTorch
model, checked by the engine's tests) and heldout.en / heldout.fr / heldout.align."""
import json
import os
import random
import sys
import time
import unicodedata

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import training  # noqa: E402
import translation_gen  # noqa: E402
from safetensors_io import save_file  # noqa: E402

SOS, EOS = 0, 1
SAMPLES = ["the red car sees a small dog .", "the happy girls like the white houses behind some black cats .",
           "a bird follows the green tree next to the table ."]


def normalize(text):
    """The tutorial's normalizeString for this language: lowercase, accents stripped (words are already split)."""
    return "".join(c for c in unicodedata.normalize("NFD", text.lower()) if unicodedata.category(c) != "Mn")


class Seq2Seq(nn.Module):
    def __init__(self, vs, vt, E, H, A):
        super().__init__()
        De = Hd = 2 * H
        self.src_emb, self.tgt_emb = nn.Embedding(vs, E), nn.Embedding(vt, E)
        self.encoder = nn.GRU(E, H, batch_first=True, bidirectional=True)
        self.bridge = nn.Linear(De, Hd)
        self.decoder = nn.GRUCell(E + De, Hd)
        self.query, self.key = nn.Linear(Hd, A, bias=False), nn.Linear(De, A, bias=False)
        self.v = nn.Linear(A, 1, bias=False)
        self.out = nn.Linear(Hd, vt)

    def encode(self, src, lengths):
        packed = nn.utils.rnn.pack_padded_sequence(self.src_emb(src), lengths, batch_first=True, enforce_sorted=False)
        keys, h = self.encoder(packed)
        keys, _ = nn.utils.rnn.pad_packed_sequence(keys, batch_first=True, total_length=src.shape[1])
        return keys, torch.tanh(self.bridge(torch.cat([h[0], h[1]], -1)))  # [fwd final; bwd final]

    def step(self, y, s, keys, key_proj, pad_mask):
        """Bahdanau: scored with the previous state, then s_t = GRU([emb(y); context], s_{t-1}); logits = out(s_t)."""
        scores = self.v(torch.tanh(self.query(s)[:, None] + key_proj)).squeeze(-1)
        a = scores.masked_fill(pad_mask, -1e9).softmax(-1)
        s = self.decoder(torch.cat([self.tgt_emb(y), (a[:, :, None] * keys).sum(1)], -1), s)
        return self.out(s), s, a

    def forward(self, src, lengths, pad_mask, y_in):
        keys, s = self.encode(src, lengths)
        key_proj = self.key(keys)
        logits = []
        for t in range(y_in.shape[1]):
            out, s, _ = self.step(y_in[:, t], s, keys, key_proj, pad_mask)
            logits.append(out)
        return torch.stack(logits, 1)

    @torch.no_grad()
    def greedy(self, src, max_len):
        keys, s = self.encode(torch.tensor([src]), torch.tensor([len(src)]))
        key_proj, mask = self.key(keys), torch.zeros(1, len(src), dtype=torch.bool)
        y, out = SOS, []
        for _ in range(max_len):
            logits, s, _ = self.step(torch.tensor([y]), s, keys, key_proj, mask)
            y = int(logits.argmax())
            out.append(y)
            if y == EOS:
                break
        return out


def main():
    args = training.setup(500)
    rng = random.Random(args.seed)

    train, heldout = translation_gen.train_and_heldout(20000, 200, args.seed)
    src_vocab = ["<SOS>", "<EOS>"] + sorted({w for p in train for w in p["en"].split()})
    tgt_vocab = ["<SOS>", "<EOS>"] + sorted({w for p in train for w in normalize(p["fr"]).split()})
    sid, tid = {w: i for i, w in enumerate(src_vocab)}, {w: i for i, w in enumerate(tgt_vocab)}

    def src_ids(text):
        return [sid[w] for w in text.split()] + [EOS]

    def tgt_ids(text):
        return [tid[w] for w in normalize(text).split()] + [EOS]

    E, H, A, max_len = 64, 64, 64, 30
    model = Seq2Seq(len(src_vocab), len(tgt_vocab), E, H, A)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=args.steps, pct_start=0.1)
    order, pos, batch = list(range(len(train))), len(train), 64
    t0 = time.time()
    for step in range(args.steps):
        if pos + batch > len(order):
            rng.shuffle(order)
            pos = 0
        chunk = [train[i] for i in order[pos:pos + batch]]
        pos += batch
        src = [src_ids(p["en"]) for p in chunk]
        tgt = [tgt_ids(p["fr"]) for p in chunk]
        S, T = max(map(len, src)), max(map(len, tgt))
        s = torch.tensor([x + [EOS] * (S - len(x)) for x in src])
        lengths = torch.tensor([len(x) for x in src])
        pad_mask = torch.arange(S)[None] >= lengths[:, None]
        y_in = torch.tensor([[SOS] + x[:-1] + [EOS] * (T - len(x)) for x in tgt])
        y = torch.tensor([x + [-100] * (T - len(x)) for x in tgt])
        loss = F.cross_entropy(model(s, lengths, pad_mask, y_in).reshape(-1, len(tgt_vocab)), y.reshape(-1),
                               ignore_index=-100)
        training.optimizer_step(model, opt, sched, loss, step, args.steps, 250, t0)

    model.eval()

    def text(ids):
        return " ".join(tgt_vocab[i] for i in ids if i != EOS)

    exact = sum(text(model.greedy(src_ids(p["en"]), max_len)) == normalize(p["fr"]) for p in heldout)
    print(f"held-out exact match (PyTorch greedy): {exact}/{len(heldout)}", flush=True)

    sd = model.state_dict()
    names = {"src_emb.weight": "encoder.embedding.weight", "tgt_emb.weight": "decoder.embedding.weight",
             "bridge.weight": "bridge.weight", "bridge.bias": "bridge.bias",
             "query.weight": "decoder.attention.query.weight", "key.weight": "decoder.attention.key.weight",
             "v.weight": "decoder.attention.v.weight", "out.weight": "decoder.out.weight",
             "out.bias": "decoder.out.bias"}
    for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
        names[f"encoder.{k}_l0"] = f"encoder.rnn.{k}_l0"
        names[f"encoder.{k}_l0_reverse"] = f"encoder.rnn.{k}_l0_reverse"
        names[f"decoder.{k}"] = f"decoder.rnn.{k}_l0"
    assert set(names) == set(sd), set(sd) ^ set(names)
    save_file({names[k]: v.numpy().astype(np.float32) for k, v in sd.items()},
              os.path.join(args.out, "model.safetensors"), {"format": "pt"})
    cfg = {"model_type": "rnn_seq2seq", "cell": "gru", "bidirectional": True, "embedding_size": E, "hidden_size": H,
           "decoder_hidden_size": 2 * H, "attention": "bahdanau", "attention_size": A, "sos_id": SOS, "eos_id": EOS,
           "max_length": max_len, "source_vocab": src_vocab, "target_vocab": tgt_vocab}
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)

    cases = []
    for src in SAMPLES + [p["en"] for p in heldout[:8]]:
        out = model.greedy(src_ids(src), max_len)
        cases.append({"source": src, "source_ids": src_ids(src), "greedy_ids": out, "translation": text(out)})
    with open(os.path.join(args.out, "reference.json"), "w") as f:
        json.dump({"note": "greedy translations (SOS first, up to max_length tokens, stop after EOS; greedy_ids "
                           "include EOS) computed by this PyTorch model in fp32", "cases": cases}, f, indent=1)
    translation_gen.write_heldout(args.out, heldout)
    print("wrote", args.out)


if __name__ == "__main__":
    main()
