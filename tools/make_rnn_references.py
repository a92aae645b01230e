# SPDX-License-Identifier: MIT
"""Makes tests/data/rnn-refs/: small random RNN seq2seq models in AttnScope's documented layout
(docs/rnn-seq2seq-format.md: config.json + model.safetensors) and their greedy outputs, attention rows and logits
computed by PyTorch, independently of the engine.

The encoder is torch's nn.GRU / nn.LSTM run over the whole source (num_layers, bidirectional: PyTorch's own stacking);
the decoder is the same module type stepped one token at a time; the attention scores are written from the formulas
of the layout document. Weights are drawn seeded, stored as float32, and the references are computed in float64 from
those float32 values, so they are the exact results of the stored model.

Run: /usr/bin/python3 tools/make_rnn_references.py tests/data/rnn-refs"""
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "train"))
from safetensors_io import save_file  # noqa: E402

VS, VT, E, H, A = 9, 10, 6, 5, 7
MAX_LENGTH = 8
SOURCES = [[2, 5, 3, 1], [4, 4, 7, 8, 6, 2, 1], [1]]
MIN_MARGIN = 1e-3  # greedy choices closer than this could flip under fp32 rounding: such a draw is rejected
MIN_DISTINCT = 3  # a draw whose greedy outputs use fewer distinct tokens (all cases together) is rejected

MODELS = {  # name: config keys beyond the common ones
    "gru_bahdanau": {"cell": "gru", "attention": "bahdanau"},
    "lstm_luong_general": {"cell": "lstm", "attention": "general"},
    "gru_luong_concat": {"cell": "gru", "attention": "concat"},
    "gru_bidirectional_bahdanau_bridge": {"cell": "gru", "attention": "bahdanau", "bidirectional": True,
                                          "decoder_hidden_size": 4},
    "lstm_bidirectional_dot": {"cell": "lstm", "attention": "dot", "bidirectional": True},
    "gru_general_input_feeding": {"cell": "gru", "attention": "general", "input_feeding": True},
    "lstm_two_layers_concat_input_feeding": {"cell": "lstm", "attention": "concat", "input_feeding": True,
                                             "num_layers": 2, "bidirectional": True},
    "gru_two_layers_bahdanau": {"cell": "gru", "attention": "bahdanau", "num_layers": 2},
}


class Seq2Seq:
    """The documented model, built from torch modules (float64)."""

    def __init__(self, cfg, gen):
        self.cfg = cfg
        rnn = torch.nn.GRU if cfg["cell"] == "gru" else torch.nn.LSTM
        self.lstm = cfg["cell"] == "lstm"
        self.layers = cfg.get("num_layers", 1)
        self.bi = cfg.get("bidirectional", False)
        self.de = H * (2 if self.bi else 1)
        self.hd = cfg.get("decoder_hidden_size", self.de)
        self.score = cfg["attention"]
        self.feed = cfg.get("input_feeding", False)
        luong = self.score != "bahdanau"
        dec_in = E + ((self.hd if self.feed else 0) if luong else self.de)
        m = torch.nn.ModuleDict()
        m["src_emb"] = torch.nn.Embedding(VS, E)
        m["encoder"] = rnn(E, H, num_layers=self.layers, bidirectional=self.bi)
        if self.hd != self.de:
            m["bridge"] = torch.nn.Linear(self.de, self.hd)
        m["tgt_emb"] = torch.nn.Embedding(VT, E)
        m["decoder"] = rnn(dec_in, self.hd, num_layers=self.layers)
        if self.score == "bahdanau":
            m["query"] = torch.nn.Linear(self.hd, A, bias=False)
            m["key"] = torch.nn.Linear(self.de, A, bias=False)
            m["v"] = torch.nn.Linear(A, 1, bias=False)
        elif self.score == "general":
            m["attn"] = torch.nn.Linear(self.de, self.hd, bias=False)  # weight [Hd, De]: s^T W h
        elif self.score == "concat":
            m["attn"] = torch.nn.Linear(self.hd + self.de, A, bias=False)
            m["v"] = torch.nn.Linear(A, 1, bias=False)
        if luong:
            m["combine"] = torch.nn.Linear(self.de + self.hd, self.hd)
        m["out"] = torch.nn.Linear(self.hd, VT)
        with torch.no_grad():
            for p in m.parameters():  # N(0, 0.5): larger than torch's init, so that attention is not uniform
                p.copy_(torch.randn(p.shape, generator=gen) * 0.5)
        self.m = m.float().double()  # the float32-rounded values, computed in float64

    def tensors(self):
        """The safetensors names of docs/rnn-seq2seq-format.md, float32."""
        m, t = self.m, {}
        t["encoder.embedding.weight"] = m["src_emb"].weight
        t["decoder.embedding.weight"] = m["tgt_emb"].weight
        for prefix, module in (("encoder.rnn.", m["encoder"]), ("decoder.rnn.", m["decoder"])):
            for name, p in module.named_parameters():
                t[prefix + name] = p
        if "bridge" in m:
            t["bridge.weight"], t["bridge.bias"] = m["bridge"].weight, m["bridge"].bias
        a = "decoder.attention."
        if self.score == "bahdanau":
            t[a + "query.weight"], t[a + "key.weight"], t[a + "v.weight"] = (m["query"].weight, m["key"].weight,
                                                                              m["v"].weight)
        elif self.score == "general":
            t[a + "weight"] = m["attn"].weight
        elif self.score == "concat":
            t[a + "weight"], t[a + "v.weight"] = m["attn"].weight, m["v"].weight
        if "combine" in m:
            t["decoder.combine.weight"], t["decoder.combine.bias"] = m["combine"].weight, m["combine"].bias
        t["decoder.out.weight"], t["decoder.out.bias"] = m["out"].weight, m["out"].bias
        return {k: v.detach().numpy().astype(np.float32) for k, v in t.items()}

    def encode(self, source):
        m = self.m
        x = m["src_emb"](torch.tensor(source)).unsqueeze(1)  # [S, 1, E]
        keys, state = m["encoder"](x)
        h_n, c_n = state if self.lstm else (state, None)

        def per_layer(s):  # [L * dirs, 1, H] -> [L, 1, De]: layer l's directions concatenated
            return torch.cat([s[d::2] for d in range(2)], dim=-1) if self.bi else s

        h0 = per_layer(h_n)
        c0 = per_layer(c_n) if self.lstm else None
        if "bridge" in m:
            h0 = torch.tanh(m["bridge"](h0))
            c0 = torch.zeros_like(h0) if self.lstm else None
        return keys[:, 0, :], (h0, c0)

    def attend(self, s, keys):
        m = self.m
        if self.score == "bahdanau":
            scores = m["v"](torch.tanh(m["query"](s) + m["key"](keys))).squeeze(-1)
        elif self.score == "dot":
            scores = keys @ s
        elif self.score == "general":
            scores = m["attn"](keys) @ s
        else:
            scores = m["v"](torch.tanh(m["attn"](torch.cat([s.expand(len(keys), -1), keys], dim=-1)))).squeeze(-1)
        a = torch.softmax(scores, dim=-1)
        return a, a @ keys

    def greedy(self, source):
        m = self.m
        keys, (h, c) = self.encode(source)
        feed = torch.zeros(self.hd, dtype=torch.float64)
        token, ids, rows, logits = 0, [], [], []
        for _ in range(MAX_LENGTH):
            e = m["tgt_emb"](torch.tensor(token))
            if self.score == "bahdanau":  # scored with the previous top-layer state
                a, ctx = self.attend(h[-1, 0], keys)
                x = torch.cat([e, ctx])
            else:
                x = torch.cat([e, feed]) if self.feed else e
            out, state = m["decoder"](x.view(1, 1, -1), (h, c) if self.lstm else h)
            h, c = state if self.lstm else (state, None)
            if self.score == "bahdanau":
                step_logits = m["out"](out[0, 0])
            else:
                a, ctx = self.attend(out[0, 0], keys)
                feed = torch.tanh(m["combine"](torch.cat([ctx, out[0, 0]])))
                step_logits = m["out"](feed)
            token = int(torch.argmax(step_logits))
            ids.append(token)
            rows.append([round(v, 10) for v in a.tolist()])  # 1e-10: far below the test's 1e-5
            logits.append([round(v, 10) for v in step_logits.tolist()])
            top = torch.topk(step_logits, 2).values
            if float(top[0] - top[1]) < MIN_MARGIN:
                return None
            if token == 1:
                break
        return {"source": source, "greedy": ids, "attention": rows, "logits": logits}


def main(out):
    torch.set_num_threads(1)
    for index, (name, extra) in enumerate(MODELS.items()):
        for attempt in range(200):
            gen = torch.Generator().manual_seed(1000 * index + attempt)
            cfg = {"model_type": "rnn_seq2seq", "embedding_size": E, "hidden_size": H, "attention_size": A,
                   "source_vocab": ["<sos>", "<eos>"] + ["s%d" % i for i in range(2, VS)],
                   "target_vocab": ["<sos>", "<eos>"] + ["t%d" % i for i in range(2, VT)],
                   "sos_id": 0, "eos_id": 1, "max_length": MAX_LENGTH, **extra}
            model = Seq2Seq(cfg, gen)
            with torch.no_grad():
                cases = [model.greedy(s) for s in SOURCES]
            if all(cases) and len({t for c in cases for t in c["greedy"]}) >= MIN_DISTINCT:
                break
        else:
            sys.exit("%s: no draw with greedy margins >= %g and %d distinct tokens" % (name, MIN_MARGIN, MIN_DISTINCT))
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        save_file(model.tensors(), os.path.join(folder, "model.safetensors"))
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(cfg, f, indent=1)
        with open(os.path.join(folder, "reference.json"), "w") as f:
            json.dump({"generator": "tools/make_rnn_references.py (torch %s, float64 from the float32 weights)"
                       % torch.__version__, "seed": 1000 * index + attempt, "min_greedy_margin": MIN_MARGIN,
                       "tolerance": "the engine (fp32) must match logits and attention within 1e-5 absolute",
                       "cases": cases}, f)
        print(name, "seed", 1000 * index + attempt, [c["greedy"] for c in cases])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/rnn-refs")
