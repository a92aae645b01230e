# SPDX-License-Identifier: MIT
"""Makes the tiny MarianMT tokenizer folder tests/data/marian-tok/ and its independent reference ids.

A real MarianMT folder ships source.spm and target.spm (SentencePiece unigram models) and vocab.json, which maps the
SentencePiece *pieces* (not their spm ids) to model ids; HF's MarianTokenizer appends </s> to the source and decodes
target ids through target.spm. Here both spm models are trained on the EN-FR toy language of
tools/train/translation_gen.py, vocab.json holds </s>=0, <unk>=1, the union of both models' pieces in a seeded
shuffled order, fillers "<unused_N>" that neither model has (real vocab.json files also hold pieces a model never
produces) and <pad> last: 128 entries like the hf-tiny marian fixture (eos 0, pad 127), so every id it can generate
decodes.

expected.json is computed here with the python sentencepiece library and the vocab.json mapping (HF MarianTokenizer's
rules), independently of the engine: encode cases (pieces, ids with </s>) and decode cases (ids -> text through
target.spm, special tokens skipped).

Run: /usr/bin/python3 tools/make_marian_tokenizer.py tests/data/marian-tok"""
import io
import json
import os
import random
import re
import sys

import sentencepiece as spm

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "train"))
import translation_gen  # noqa: E402

VOCAB_SIZE = 128
SPECIALS = ("<unk>", "<s>", "</s>")
LANGUAGE_CODE = re.compile(">>.+<<")  # HF MarianTokenizer.language_code_re


def train(sentences, vocab_size):
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(sentences), model_writer=model, vocab_size=vocab_size,
                                   model_type="unigram", character_coverage=1.0, normalization_rule_name="identity", unk_id=0, bos_id=1, eos_id=2,
                                   pad_id=-1, num_threads=1, minloglevel=2)
    return model.getvalue()


def pieces_of(proc):
    return [proc.id_to_piece(i) for i in range(proc.get_piece_size()) if proc.id_to_piece(i) not in SPECIALS]


def encode(proc, vocab, text):
    """HF MarianTokenizer: a leading language code as one piece, spm pieces of the text without codes,
    vocab.json ids (unknown pieces -> <unk>), then </s>."""
    code = LANGUAGE_CODE.match(text)
    pieces = ([code.group(0)] if code else []) + proc.encode(LANGUAGE_CODE.sub("", text), out_type=str)
    return pieces, [vocab.get(p, vocab["<unk>"]) for p in pieces] + [vocab["</s>"]]


def clean_up_tokenization(text):
    """transformers' PreTrainedTokenizerBase.clean_up_tokenization (on by default up to transformers 4.44)."""
    for before, after in ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"),
                          (" 'm", "'m"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re")):
        text = text.replace(before, after)
    return text


def decode(proc, inverse, special_ids, ids):
    """HF MarianTokenizer.decode(ids, skip_special_tokens=True): vocab.json pieces decoded by target.spm."""
    pieces = [inverse[i] for i in ids if i not in special_ids]
    return clean_up_tokenization(proc.decode_pieces(pieces).replace("\u2581", " ").strip())


def main(out):
    pairs = translation_gen.generate(400, seed=11)
    src_model = train([p["en"] for p in pairs], 72)
    tgt_model = train([p["fr"] for p in pairs], 72)
    src, tgt = spm.SentencePieceProcessor(), spm.SentencePieceProcessor()
    src.load_from_serialized_proto(src_model)
    tgt.load_from_serialized_proto(tgt_model)
    union = pieces_of(src) + [p for p in pieces_of(tgt) if p not in set(pieces_of(src))]
    if len(union) > VOCAB_SIZE - 3:
        sys.exit("%d pieces do not fit a %d-token vocabulary" % (len(union), VOCAB_SIZE))
    random.Random(7).shuffle(union)  # vocab.json ids must not coincide with either spm model's ids
    vocab = {"</s>": 0, "<unk>": 1, ">>fr<<": 2}  # multilingual Marian vocabularies hold target-language codes
    for p in union:
        vocab[p] = len(vocab)
    while len(vocab) < VOCAB_SIZE - 1:
        vocab["<unused_%d>" % len(vocab)] = len(vocab)
    vocab["<pad>"] = VOCAB_SIZE - 1
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "source.spm"), "wb") as f:
        f.write(src_model)
    with open(os.path.join(out, "target.spm"), "wb") as f:
        f.write(tgt_model)
    with open(os.path.join(out, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False, indent=1)
    with open(os.path.join(out, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump({"tokenizer_class": "MarianTokenizer", "source_lang": "en", "target_lang": "fr",
                   "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>", "separate_vocabs": False,
                   "model_max_length": 512}, f, indent=1)

    held_out = translation_gen.generate(6, seed=1234)
    texts = [p["en"] for p in held_out] + [
        "the zebra sees a quokka .",  # letters the source model never saw: <unk> pieces
        "  the   red car  ",  # spm's whitespace normalization
        "",
        ">>fr<< the red car .",
        ">>de<< a dog .",  # a code missing from vocab.json: <unk>
    ]
    inverse = {i: p for p, i in vocab.items()}
    special_ids = {vocab["</s>"], vocab["<unk>"], vocab["<pad>"]}
    encode_cases = []
    for text in texts:
        pieces, ids = encode(src, vocab, text)
        encode_cases.append({"text": text, "pieces": pieces, "ids": ids})
    decode_cases = []
    for p in held_out:  # target sentences as the model would produce them: target.spm pieces, then </s>
        ids = [vocab.get(x, vocab["<unk>"]) for x in tgt.encode(p["fr"], out_type=str)] + [vocab["</s>"]]
        decode_cases.append({"ids": ids, "text": decode(tgt, inverse, special_ids, ids)})
    # specials are skipped; a piece target.spm does not know decodes as its unknown surface
    mixed = [vocab["<pad>"]] + decode_cases[0]["ids"][:3] + [vocab["<unk>"], VOCAB_SIZE - 2] + decode_cases[1]["ids"]
    decode_cases.append({"ids": mixed, "text": decode(tgt, inverse, special_ids, mixed)})
    with open(os.path.join(out, "expected.json"), "w", encoding="utf-8") as f:
        json.dump({"generator": "tools/make_marian_tokenizer.py (python sentencepiece %s + vocab.json mapping)"
                   % spm.__version__, "eos_id": vocab["</s>"], "unk_id": vocab["<unk>"], "pad_id": vocab["<pad>"],
                   "vocab_size": VOCAB_SIZE, "encode": encode_cases, "decode": decode_cases},
                  f, ensure_ascii=False, indent=1)
    print("%d source pieces, %d target pieces, %d in vocab.json" % (len(pieces_of(src)), len(pieces_of(tgt)),
                                                                    len(vocab)))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/marian-tok")
