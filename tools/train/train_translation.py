# SPDX-License-Identifier: MIT
"""Trains the bundled demo translation Transformer on the toy English -> French language (translation_gen.py) and
exports an HF MarianMT folder.

usage: python3 tools/train/train_translation.py OUT_DIR [--steps N] [--seed S]
Writes config.json, generation_config.json, model.safetensors (MarianMTModel tensor names; sinusoids not stored),
source.spm + target.spm (SentencePiece BPE models of each language), vocab.json (the joint piece -> id map that
MarianTokenizer reads), tokenizer_config.json, special_tokens_map.json, reference.json (greedy translations by this
PyTorch model, checked by the engine's tests) and heldout.en / heldout.fr / heldout.align (held-out pairs with gold
alignments, for tools/eval_demo_translation.py)."""
import io
import json
import os
import random
import sys
import time

import sentencepiece as spm
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import training  # noqa: E402
import translation_gen  # noqa: E402
from marian_torch import Marian  # noqa: E402
from safetensors_io import save_file  # noqa: E402

EOS, UNK, PAD = "</s>", "<unk>", "<pad>"
SAMPLES = ["the red car sees a small dog .", "the happy girls like the white houses behind some black cats .",
           "a bird follows the green tree next to the table ."]


def train_spm(lines, vocab_size):
    """A BPE model with enough merges that every toy word is one piece (checked by the caller). Marian's own models
    are unigram, but on a 50-word language unigram training keeps splitting frequent words into letters."""
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model, vocab_size=vocab_size,
                                   model_type="bpe", character_coverage=1.0, hard_vocab_limit=False,
                                   minloglevel=2)
    return model.getvalue()


class Tokenizer:
    """MarianTokenizer: source.spm / target.spm pieces -> ids through the joint vocab.json, EOS appended."""

    def __init__(self, src_model, tgt_model):
        self.src = spm.SentencePieceProcessor(model_proto=src_model)
        self.tgt = spm.SentencePieceProcessor(model_proto=tgt_model)
        pieces = {p for sp in (self.src, self.tgt) for p in (sp.id_to_piece(i) for i in range(sp.get_piece_size()))
                  if not sp.is_control(sp.piece_to_id(p)) and not sp.is_unknown(sp.piece_to_id(p))}
        self.vocab = {EOS: 0, UNK: 1}
        for p in sorted(pieces):
            self.vocab[p] = len(self.vocab)
        self.vocab[PAD] = len(self.vocab)
        self.itos = {i: p for p, i in self.vocab.items()}

    def encode(self, text, target=False):
        sp = self.tgt if target else self.src
        return [self.vocab.get(p, self.vocab[UNK]) for p in sp.encode(text, out_type=str)] + [self.vocab[EOS]]

    def decode(self, ids):
        return self.tgt.decode_pieces([self.itos[i] for i in ids if i not in (self.vocab[EOS], self.vocab[PAD])])


def batches(pairs, tok, batch, rng, pad):
    order = list(range(len(pairs)))
    while True:
        rng.shuffle(order)
        for k in range(0, len(order) - batch + 1, batch):
            src = [tok.encode(pairs[i]["en"]) for i in order[k:k + batch]]
            tgt = [tok.encode(pairs[i]["fr"], target=True) for i in order[k:k + batch]]
            S, T = max(map(len, src)), max(map(len, tgt))
            s = torch.tensor([x + [pad] * (S - len(x)) for x in src])
            y = torch.tensor([x + [-100] * (T - len(x)) for x in tgt])
            y_in = torch.tensor([[pad] + x[:-1] + [pad] * (T - len(x)) for x in tgt])  # decoder_start = pad
            yield s, s == pad, y_in, y


def main():
    args = training.setup(400)
    rng = random.Random(args.seed)

    train, heldout = translation_gen.train_and_heldout(20000, 200, args.seed)
    src_model = train_spm([p["en"] for p in train], 160)
    tgt_model = train_spm([p["fr"] for p in train], 200)
    tok = Tokenizer(src_model, tgt_model)
    for p in train[:2000]:  # word-level pieces keep the demo's attention readable word by word
        assert len(tok.encode(p["en"])) == len(p["en"].split()) + 1, p["en"]
        assert len(tok.encode(p["fr"], True)) == len(p["fr"].split()) + 1, p["fr"]
    V, pad = len(tok.vocab), tok.vocab[PAD]
    print(f"vocab {V}", flush=True)

    cfg = {"architectures": ["MarianMTModel"], "model_type": "marian", "d_model": 64, "encoder_layers": 2,
           "decoder_layers": 2, "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 256,
           "decoder_ffn_dim": 256, "activation_function": "swish", "vocab_size": V, "decoder_vocab_size": V,
           "max_position_embeddings": 64, "scale_embedding": True, "share_encoder_decoder_embeddings": True,
           "tie_word_embeddings": True, "static_position_embeddings": True, "normalize_before": False,
           "normalize_embedding": False, "add_bias_logits": False, "is_encoder_decoder": True,
           "eos_token_id": 0, "forced_eos_token_id": 0, "pad_token_id": pad, "decoder_start_token_id": pad,
           "bos_token_id": 0, "dropout": 0.0, "attention_dropout": 0.0, "activation_dropout": 0.0,
           "num_hidden_layers": 2, "torch_dtype": "float32"}
    model = Marian(cfg)
    torch.nn.init.normal_(model.model.shared.weight, std=cfg["d_model"] ** -0.5)  # unit scale after the sqrt(d) factor
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=args.steps, pct_start=0.1)
    data = batches(train, tok, 64, rng, pad)
    t0 = time.time()
    for step in range(args.steps):
        s, s_pad, y_in, y = next(data)
        logits = model(s, y_in, s_pad)
        loss = F.cross_entropy(logits.reshape(-1, V), y.reshape(-1), ignore_index=-100)
        training.optimizer_step(model, opt, sched, loss, step, args.steps, 250, t0)

    model.eval()
    exact = sum(tok.decode(model.greedy(tok.encode(p["en"]))) == p["fr"] for p in heldout)
    print(f"held-out exact match (PyTorch greedy): {exact}/{len(heldout)}", flush=True)

    save_file(model.export_tensors(), os.path.join(args.out, "model.safetensors"), {"format": "pt"})
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    with open(os.path.join(args.out, "generation_config.json"), "w") as f:
        json.dump({"bos_token_id": 0, "decoder_start_token_id": pad, "eos_token_id": 0, "forced_eos_token_id": 0,
                   "pad_token_id": pad, "max_length": 64, "num_beams": 1}, f, indent=2)
    for name, blob in (("source.spm", src_model), ("target.spm", tgt_model)):
        with open(os.path.join(args.out, name), "wb") as f:
            f.write(blob)
    with open(os.path.join(args.out, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(tok.vocab, f, ensure_ascii=False, indent=1)
    with open(os.path.join(args.out, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "MarianTokenizer", "source_lang": "en", "target_lang": "fr", "eos_token": EOS,
                   "unk_token": UNK, "pad_token": PAD, "model_max_length": 64, "separate_vocabs": False,
                   "clean_up_tokenization_spaces": False}, f, indent=2)
    with open(os.path.join(args.out, "special_tokens_map.json"), "w") as f:
        json.dump({"eos_token": EOS, "unk_token": UNK, "pad_token": PAD}, f, indent=2)

    cases = []
    for text in SAMPLES + [p["en"] for p in heldout[:8]]:
        ids = tok.encode(text)
        out = model.greedy(ids)
        cases.append({"source": text, "source_ids": ids, "greedy_ids": out, "translation": tok.decode(out)})
    with open(os.path.join(args.out, "reference.json"), "w", encoding="utf-8") as f:
        json.dump({"note": "greedy translations (decoder_start_token_id first, up to 40 new tokens, stop after EOS; "
                           "greedy_ids include EOS) computed by tools/train/marian_torch.py in fp32",
                   "cases": cases}, f, ensure_ascii=False, indent=1)
    translation_gen.write_heldout(args.out, heldout)
    print("wrote", args.out)


if __name__ == "__main__":
    main()
