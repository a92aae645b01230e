# SPDX-License-Identifier: MIT
"""A small byte-level BPE (GPT-2 conventions) trainer and encoder, writing vocab.json + merges.txt.

GPT-2's pre-tokenizer regex is applied in its ASCII form (the generated corpus is ASCII, where the two agree)."""
import json
import re
from collections import Counter

PRETOKENIZE = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")


def bytes_to_unicode():
    """GPT-2's reversible byte -> printable unicode character map."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


BYTE_MAP = bytes_to_unicode()


def words_of(text):
    return ["".join(BYTE_MAP[b] for b in w.encode("utf-8")) for w in PRETOKENIZE.findall(text)]


def train(texts, vocab_size, specials):
    counts = Counter(w for t in texts for w in words_of(t))
    words = {w: list(w) for w in counts}
    vocab = [BYTE_MAP[b] for b in range(256)]
    merges = []
    while len(vocab) + len(specials) < vocab_size:
        pairs = Counter()
        for w, syms in words.items():
            for a, b in zip(syms, syms[1:]):
                pairs[(a, b)] += counts[w]
        if not pairs:
            break
        (a, b), _ = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))
        merges.append((a, b))
        vocab.append(a + b)
        for w, syms in words.items():
            i, out = 0, []
            while i < len(syms):
                if i + 1 < len(syms) and syms[i] == a and syms[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(syms[i])
                    i += 1
            words[w] = out
    vocab += specials
    return {tok: i for i, tok in enumerate(vocab)}, merges


class Encoder:
    def __init__(self, vocab, merges):
        self.vocab = vocab
        self.ranks = {pair: i for i, pair in enumerate(merges)}
        self.cache = {}

    def _bpe(self, word):
        if word in self.cache:
            return self.cache[word]
        syms = list(word)
        while len(syms) > 1:
            best = min(((self.ranks.get((a, b), 1 << 30), i) for i, (a, b) in enumerate(zip(syms, syms[1:]))))
            if best[0] == 1 << 30:
                break
            i = best[1]
            syms[i:i + 2] = [syms[i] + syms[i + 1]]
        self.cache[word] = syms
        return syms

    def encode(self, text):
        return [self.vocab[s] for w in words_of(text) for s in self._bpe(w)]


def save(folder, vocab, merges):
    with open(f"{folder}/vocab.json", "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(f"{folder}/merges.txt", "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for a, b in merges:
            f.write(f"{a} {b}\n")
