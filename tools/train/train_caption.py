# SPDX-License-Identifier: MIT
"""Trains the bundled demo captioner on generated scenes (caption_scenes.py) and exports an HF VisionEncoderDecoderModel
folder (ViT encoder + GPT-2 decoder with cross-attention, caption_torch.py).

usage: python3 tools/train/train_caption.py OUT_DIR [--steps N] [--seed S]
Writes config.json, generation_config.json, model.safetensors, preprocessor_config.json, vocab.json + merges.txt
(byte-level BPE, every caption word one token), tokenizer_config.json, special_tokens_map.json, samples/ (held-out
scenes as PNGs) and reference.json (per sample: RGB pixels, the true caption with its object words' patch coverage,
and the greedy ids and text of this PyTorch model, which the engine's tests must reproduce exactly)."""
import json
import os
import time

import numpy as np
import torch
import torch.nn.functional as F

import bpe
import caption_scenes
import shapes_gen
import training
from caption_torch import Captioner
from safetensors_io import save_file
from vit_torch import preprocess

EOT = "<|endoftext|>"
HELDOUT_SEED_OFFSET = 1  # tools/eval_demo_caption.py draws its held-out scenes from seed + 1
SAMPLES_SEED_OFFSET = 2
POOL = 16000
MAX_NEW = 14


def patch_coverage(mask, patch):
    """Fraction of each patch's pixels inside the mask, [patches] row-major."""
    g = mask.shape[0] // patch
    return mask.reshape(g, patch, g, patch).mean(axis=(1, 3)).reshape(-1)


def main():
    args = training.setup(3000)
    scenes = caption_scenes.generate(POOL, args.seed)
    vocab, merges = bpe.train([s[1] for s in scenes[:2000]], 1000, [EOT])
    enc = bpe.Encoder(vocab, merges)
    eot = vocab[EOT]
    captions = [enc.encode(s[1]) for s in scenes]
    assert all(len(c) == len(s[1].split()) for c, s in zip(captions, scenes)), "a caption word is not one token"
    T = max(len(c) for c in captions) + 1
    print(f"vocab {len(vocab)}, {POOL} scenes, up to {T} decoder positions", flush=True)

    patch = 8
    cfg = {"architectures": ["VisionEncoderDecoderModel"], "model_type": "vision-encoder-decoder",
           "is_encoder_decoder": True, "decoder_start_token_id": eot, "pad_token_id": eot, "tie_word_embeddings": False,
           "encoder": {"model_type": "vit", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
                       "intermediate_size": 128, "hidden_act": "gelu", "image_size": caption_scenes.SIZE,
                       "patch_size": patch, "num_channels": 3, "qkv_bias": True, "layer_norm_eps": 1e-12,
                       "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0},
           "decoder": {"model_type": "gpt2", "n_embd": 64, "n_layer": 2, "n_head": 4, "n_positions": 16,
                       "vocab_size": len(vocab), "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5,
                       "add_cross_attention": True, "is_decoder": True, "bos_token_id": eot, "eos_token_id": eot,
                       "resid_pdrop": 0.0, "embd_pdrop": 0.0, "attn_pdrop": 0.0, "tie_word_embeddings": True},
           "torch_dtype": "float32"}
    model = Captioner(cfg)
    pixels = preprocess(np.stack([s[0] for s in scenes]))
    ids = torch.full((POOL, T + 1), -100, dtype=torch.long)
    for i, c in enumerate(captions):
        ids[i, : len(c) + 2] = torch.tensor([eot] + c + [eot])
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=args.steps, pct_start=0.1)
    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    for step in range(args.steps):
        b = torch.tensor(rng.integers(POOL, size=32))
        x, y = ids[b, :-1].clamp(min=0), ids[b, 1:]
        logits = model.decode(x, model.encode(pixels[b]))
        loss = F.cross_entropy(logits.reshape(-1, len(vocab)), y.reshape(-1), ignore_index=-100)
        training.optimizer_step(model, opt, sched, loss, step, args.steps, 200, t0)
    model.eval()

    heldout = caption_scenes.generate(300, args.seed + HELDOUT_SEED_OFFSET)
    out = model.greedy(preprocess(np.stack([h[0] for h in heldout])), MAX_NEW)
    exact = np.mean([o == enc.encode(h[1]) + [eot] for o, h in zip(out, heldout)])
    print(f"held-out exact match (PyTorch): {exact:.4f}", flush=True)

    save_file(model.export_tensors(), os.path.join(args.out, "model.safetensors"), {"format": "pt"})
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    with open(os.path.join(args.out, "generation_config.json"), "w") as f:
        json.dump({"decoder_start_token_id": eot, "bos_token_id": eot, "eos_token_id": eot, "pad_token_id": eot,
                   "max_new_tokens": MAX_NEW}, f, indent=2)
    with open(os.path.join(args.out, "preprocessor_config.json"), "w") as f:
        json.dump({"image_processor_type": "ViTImageProcessor", "do_resize": True, "do_rescale": True,
                   "do_normalize": True, "size": {"height": caption_scenes.SIZE, "width": caption_scenes.SIZE},
                   "resample": 2, "rescale_factor": 1 / 255, "image_mean": [0.5, 0.5, 0.5],
                   "image_std": [0.5, 0.5, 0.5]}, f, indent=2)
    bpe.save(args.out, vocab, merges)
    with open(os.path.join(args.out, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "GPT2Tokenizer", "bos_token": EOT, "eos_token": EOT, "unk_token": EOT,
                   "model_max_length": 16}, f, indent=2)
    with open(os.path.join(args.out, "special_tokens_map.json"), "w") as f:
        json.dump({"bos_token": EOT, "eos_token": EOT, "unk_token": EOT}, f, indent=2)

    # Held-out samples for the GUI and the engine's tests, from a seed used neither for training nor for evaluation.
    samples = caption_scenes.generate(8, args.seed + SAMPLES_SEED_OFFSET)
    os.makedirs(os.path.join(args.out, "samples"), exist_ok=True)
    greedy = model.greedy(preprocess(np.stack([s[0] for s in samples])), MAX_NEW)
    cases = []
    for k, ((img, caption, objects), g) in enumerate(zip(samples, greedy)):
        name = f"samples/scene_{k}.png"
        shapes_gen.write_png(os.path.join(args.out, name), img)
        cases.append({"image": name, "caption": caption, "greedy_ids": g,
                      "greedy_text": bpe_decode(vocab, [i for i in g if i != eot]),
                      "objects": [{"shape": o["shape"], "colour": o["colour"], "colour_word": o["colour_word"],
                                   "shape_word": o["shape_word"],
                                   "patch_coverage": patch_coverage(o["mask"], patch).round(4).tolist()}
                                  for o in objects],
                      "rgb": img.reshape(-1).tolist()})
    with open(os.path.join(args.out, "reference.json"), "w") as f:
        json.dump({"note": "per held-out sample: the PNG's RGB bytes (row-major HWC), the true caption and for each "
                           "object the caption word indexes of its colour and shape and the fraction of each patch "
                           "it covers; greedy_ids (EOS included) and greedy_text computed by "
                           "tools/train/caption_torch.py in fp32 after ViTImageProcessor's normalisation",
                   "max_new_tokens": MAX_NEW, "cases": cases}, f)
    print("wrote", args.out)


def bpe_decode(vocab, ids):
    inverse = {i: t for t, i in vocab.items()}
    byte_of = {c: b for b, c in bpe.BYTE_MAP.items()}
    return bytes(byte_of[c] for i in ids for c in inverse[i]).decode("utf-8")


if __name__ == "__main__":
    main()
