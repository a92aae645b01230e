# SPDX-License-Identifier: MIT
"""Trains the bundled demo decoder (Llama layout with GQA) on generated stories and exports an HF folder.

usage: python3 tools/train/train_decoder.py OUT_DIR [--steps N] [--seed S]
Writes config.json, model.safetensors, vocab.json, merges.txt, tokenizer_config.json, special_tokens_map.json,
reference.json (greedy continuations from this PyTorch model, checked by the engine's tests) and heldout_stories.jsonl
(ground truth for tools/eval_demo_lm.py)."""
import json
import os
import random
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bpe  # noqa: E402
import training  # noqa: E402
import stories  # noqa: E402
from llama_torch import Llama  # noqa: E402
from safetensors_io import save_file  # noqa: E402

EOT = "<|endoftext|>"
PROMPTS = ["Lily and Tom went to the park. Lily found a red ball. She gave it to",
           "Sam said the magic words: moon tree fish rain. Then he said again:",
           "The dogs near the old house"]


def main():
    args = training.setup(1500, lambda ap: ap.add_argument("--stories", type=int, default=30000))
    random.seed(args.seed)

    corpus = stories.generate(args.stories, args.seed)
    heldout = stories.generate(200, args.seed + 1)
    texts = [s["text"] for s in corpus]
    vocab, merges = bpe.train(texts[:3000], 512, [EOT])
    enc = bpe.Encoder(vocab, merges)
    eot = vocab[EOT]
    stream = []
    for t in texts:
        stream += enc.encode(t) + [eot]
    data = torch.tensor(stream, dtype=torch.long)
    print(f"vocab {len(vocab)}, corpus {len(stream)} tokens", flush=True)

    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 128, "intermediate_size": 344,
           "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": len(vocab),
           "max_position_embeddings": 256, "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "hidden_act": "silu",
           "tie_word_embeddings": False, "attention_bias": False, "bos_token_id": eot, "eos_token_id": eot,
           "torch_dtype": "float32"}
    model = Llama(cfg)
    seq, batch = 128, 16
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=args.steps, pct_start=0.1)
    t0 = time.time()
    for step in range(args.steps):
        starts = torch.randint(0, len(data) - seq - 1, (batch,))
        x = torch.stack([data[s:s + seq] for s in starts])
        y = torch.stack([data[s + 1:s + seq + 1] for s in starts])
        loss = F.cross_entropy(model(x).view(-1, len(vocab)), y.view(-1))
        training.optimizer_step(model, opt, sched, loss, step, args.steps, 100, t0)

    model.eval()
    tensors = {k: v.detach().numpy().astype(np.float32) for k, v in model.state_dict().items()}
    save_file(tensors, os.path.join(args.out, "model.safetensors"), {"format": "pt"})
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    bpe.save(args.out, vocab, merges)
    with open(os.path.join(args.out, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "GPT2Tokenizer", "bos_token": EOT, "eos_token": EOT, "unk_token": EOT,
                   "add_bos_token": False, "model_max_length": 256}, f, indent=2)
    with open(os.path.join(args.out, "special_tokens_map.json"), "w") as f:
        json.dump({"bos_token": EOT, "eos_token": EOT, "unk_token": EOT}, f, indent=2)

    refs = []
    with torch.no_grad():
        for p in PROMPTS:
            ids = enc.encode(p)
            prompt_logits = model(torch.tensor([ids]))[0]
            out = list(ids)
            for _ in range(24):
                out.append(int(model(torch.tensor([out]))[0, -1].argmax()))
            refs.append({"prompt": p, "prompt_ids": ids, "greedy_ids": out[len(ids):],
                         "last_logits": prompt_logits[-1].tolist()})
    with open(os.path.join(args.out, "reference.json"), "w") as f:
        json.dump({"note": "greedy continuations (24 tokens, no EOS stop) and the prompt's last-position logits, "
                           "computed by tools/train/llama_torch.py in fp32", "cases": refs}, f)
    with open(os.path.join(args.out, "heldout_stories.jsonl"), "w") as f:
        for s in heldout:
            f.write(json.dumps(s) + "\n")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
