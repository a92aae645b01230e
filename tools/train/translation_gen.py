# SPDX-License-Identifier: MIT
"""Generator of a toy English -> French language with gold word alignments.

It exercises what makes alignment interesting: adjective-noun reordering ("the red car" -> "la voiture rouge"),
gender and number agreement (le/la/les, rouge/rouges, petit/petite), and multi-word phrases
("next to" -> "à côté de", "in front of" -> "devant"). Alignments are 0-based word indices, Pharaoh style:
sure links "i-j", possible links "i?j" (used inside multi-word phrases, where word-to-word links are a convention). French elision is left out
(toy language: "le oiseau"), so that every word is one whitespace-separated token."""
import json
import os
import random
import sys

NOUNS = {  # english: (french, gender)
    "car": ("voiture", "f"), "house": ("maison", "f"), "dog": ("chien", "m"), "cat": ("chat", "m"),
    "book": ("livre", "m"), "table": ("table", "f"), "tree": ("arbre", "m"), "flower": ("fleur", "f"),
    "boy": ("garçon", "m"), "girl": ("fille", "f"), "bird": ("oiseau", "m"), "door": ("porte", "f"),
}
ADJS = {  # english: (masculine, feminine)
    "red": ("rouge", "rouge"), "small": ("petit", "petite"), "green": ("vert", "verte"),
    "black": ("noir", "noire"), "white": ("blanc", "blanche"), "happy": ("content", "contente"),
}
VERBS = {"sees": ("voit", "voient"), "likes": ("aime", "aiment"), "follows": ("suit", "suivent"),
         "finds": ("trouve", "trouvent")}
PREPS = {"next to": ["à", "côté", "de"], "in front of": ["devant"], "behind": ["derrière"], "near": ["près", "de"]}


def noun_phrase(rng, src, tgt, sure, possible):
    """Appends "the [adj] noun[s]" / "le nom [adj]" and its links; returns (gender, plural)."""
    en_noun = rng.choice(list(NOUNS))
    fr_noun, gender = NOUNS[en_noun]
    plural = rng.random() < 0.3
    adj = rng.choice(list(ADJS)) if rng.random() < 0.6 else None
    definite = rng.random() < 0.7
    if plural:
        en_det, fr_det = ("the", "les") if definite else ("some", "des")
    else:
        en_det = "the" if definite else "a"
        fr_det = ("le" if gender == "m" else "la") if definite else ("un" if gender == "m" else "une")
    sure.append((len(src), len(tgt)))
    src.append(en_det)
    tgt.append(fr_det)
    if adj:
        adj_src = len(src)
        src.append(adj)
        noun_src = len(src)
        src.append(en_noun + ("s" if plural else ""))
        sure.append((noun_src, len(tgt)))
        tgt.append(fr_noun + ("s" if plural else ""))
        fr_adj = ADJS[adj][0 if gender == "m" else 1]
        if plural and not fr_adj.endswith("s"):
            fr_adj += "s"
        sure.append((adj_src, len(tgt)))
        tgt.append(fr_adj)
    else:
        sure.append((len(src), len(tgt)))
        src.append(en_noun + ("s" if plural else ""))
        tgt.append(fr_noun + ("s" if plural else ""))
    return gender, plural


def make_pair(rng):
    src, tgt, sure, possible = [], [], [], []
    _, plural = noun_phrase(rng, src, tgt, sure, possible)
    en_verb = rng.choice(list(VERBS))
    sure.append((len(src), len(tgt)))
    src.append(en_verb[:-1] if plural else en_verb)  # "sees" -> "see" after a plural subject
    tgt.append(VERBS[en_verb][1 if plural else 0])
    noun_phrase(rng, src, tgt, sure, possible)
    if rng.random() < 0.5:
        en_prep = rng.choice(list(PREPS))
        en_words, fr_words = en_prep.split(), PREPS[en_prep]
        s0, t0 = len(src), len(tgt)
        src += en_words
        tgt += fr_words
        for i in range(len(en_words)):
            for j in range(len(fr_words)):
                (sure if len(en_words) == 1 and len(fr_words) == 1 else possible).append((s0 + i, t0 + j))
        noun_phrase(rng, src, tgt, sure, possible)
    sure.append((len(src), len(tgt)))
    src.append(".")
    tgt.append(".")
    return {"en": " ".join(src), "fr": " ".join(tgt),
            "sure": sorted(sure), "possible": sorted(possible)}


def generate(n, seed):
    rng = random.Random(seed)
    return [make_pair(rng) for _ in range(n)]


def pharaoh(pair):
    return " ".join([f"{i}-{j}" for i, j in pair["sure"]] + [f"{i}?{j}" for i, j in pair["possible"]])


def train_and_heldout(n_train, n_heldout, seed):
    """Training pairs, and held-out pairs whose English sentence never occurs in training."""
    train = generate(n_train, seed)
    seen = {p["en"] for p in train}
    heldout = [p for p in generate(n_heldout * 3, seed + 1) if p["en"] not in seen]
    return train, heldout[:n_heldout]


def write_heldout(folder, pairs):
    """heldout.en / heldout.fr / heldout.align (Pharaoh gold: sure "i-j", possible "i?j"), the inputs of
    `attnscope-cli align --src --tgt --gold`."""
    with open(os.path.join(folder, "heldout.en"), "w", encoding="utf-8") as en, \
            open(os.path.join(folder, "heldout.fr"), "w", encoding="utf-8") as fr, \
            open(os.path.join(folder, "heldout.align"), "w") as al:
        for p in pairs:
            en.write(p["en"] + "\n")
            fr.write(p["fr"] + "\n")
            al.write(pharaoh(p) + "\n")


if __name__ == "__main__":
    for p in generate(int(sys.argv[1]) if len(sys.argv) > 1 else 5, int(sys.argv[2]) if len(sys.argv) > 2 else 0):
        print(json.dumps(p, ensure_ascii=False))
