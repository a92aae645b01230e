# SPDX-License-Identifier: MIT
"""Trains the bundled demo ViT on generated shapes (shapes_gen.py) and exports an HF ViTForImageClassification folder.

usage: python3 tools/train/train_vit.py OUT_DIR [--steps N] [--seed S]
Writes config.json, model.safetensors, preprocessor_config.json, samples/ (a few PNGs with their object masks) and
reference.json (per sample: RGB pixels, class and logits from this PyTorch model, checked by the engine's tests)."""
import json
import os
import time

import numpy as np
import torch
import torch.nn.functional as F

import shapes_gen
import training
from safetensors_io import save_file
from vit_torch import ViT, preprocess

HELDOUT_SEED_OFFSET = 1  # tools/eval_demo_vit.py draws its held-out images from seed + 1


def main():
    args = training.setup(600)
    rng = np.random.default_rng(args.seed)

    labels = {str(i): c for i, c in enumerate(shapes_gen.CLASSES)}
    cfg = {"architectures": ["ViTForImageClassification"], "model_type": "vit", "hidden_size": 64,
           "num_hidden_layers": 3, "num_attention_heads": 4, "intermediate_size": 128, "hidden_act": "gelu",
           "image_size": shapes_gen.SIZE, "patch_size": 4, "num_channels": 3, "qkv_bias": True,
           "layer_norm_eps": 1e-12, "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0,
           "id2label": labels, "label2id": {c: int(i) for i, c in labels.items()}, "torch_dtype": "float32"}
    model = ViT(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.05)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=args.steps, pct_start=0.1)
    t0 = time.time()
    for step in range(args.steps):
        batch = [shapes_gen.make_image(rng) for _ in range(64)]
        x = preprocess([b[0] for b in batch])
        y = torch.tensor([b[2] for b in batch])
        loss = F.cross_entropy(model(x), y)
        training.optimizer_step(model, opt, sched, loss, step, args.steps, 100, t0)

    model.eval()
    heldout = shapes_gen.generate(400, args.seed + HELDOUT_SEED_OFFSET)
    with torch.no_grad():
        pred = model(preprocess([h[0] for h in heldout])).argmax(-1).numpy()
    print(f"held-out accuracy (PyTorch): {(pred == np.array([h[2] for h in heldout])).mean():.4f}", flush=True)

    save_file({k: v.detach().numpy().astype(np.float32) for k, v in model.state_dict().items()},
              os.path.join(args.out, "model.safetensors"), {"format": "pt"})
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    with open(os.path.join(args.out, "preprocessor_config.json"), "w") as f:
        json.dump({"image_processor_type": "ViTImageProcessor", "do_resize": True, "do_rescale": True,
                   "do_normalize": True, "size": {"height": shapes_gen.SIZE, "width": shapes_gen.SIZE},
                   "resample": 2, "rescale_factor": 1 / 255, "image_mean": [0.5, 0.5, 0.5],
                   "image_std": [0.5, 0.5, 0.5]}, f, indent=2)

    # Two samples per class, from a seed used neither for training nor for the held-out set.
    pool, samples = shapes_gen.generate(64, args.seed + 2), []
    for label in range(len(shapes_gen.CLASSES)):
        samples += [s for s in pool if s[2] == label][:2]
    records = shapes_gen.write_samples(os.path.join(args.out, "samples"), samples, "sample")
    with torch.no_grad():
        logits = model(preprocess([s[0] for s in samples])).numpy()
    cases = [dict(r, image="samples/" + r["image"], mask="samples/" + r["mask"], predicted=int(l.argmax()),
                  logits=l.tolist(), rgb=s[0].reshape(-1).tolist())
             for r, l, s in zip(records, logits, samples)]
    with open(os.path.join(args.out, "reference.json"), "w") as f:
        json.dump({"note": "per sample: the PNG's RGB bytes (row-major HWC), its true label, and the class and logits "
                           "computed by tools/train/vit_torch.py in fp32 after ViTImageProcessor's normalisation",
                   "cases": cases}, f)
    print("wrote", args.out)


if __name__ == "__main__":
    main()
