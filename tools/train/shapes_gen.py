# SPDX-License-Identifier: MIT
"""Generator of small RGB images of one shape (circle, square, triangle, cross) at a random position, size and colour
on a noisy background, with the object's pixel mask, so that where a vision model attends can be scored.

usage: python3 shapes_gen.py OUT_DIR [N] [SEED] writes N images as shape_K.png + shape_K_mask.png and labels.json.
Needs numpy only (PNG is written with zlib)."""
import json
import os
import struct
import sys
import zlib

import numpy as np

CLASSES = ["circle", "square", "triangle", "cross"]
SIZE = 32


def shape_mask(kind, cx, cy, r, size=SIZE):
    y, x = np.mgrid[0:size, 0:size] + 0.5
    dx, dy = x - cx, y - cy
    if kind == "circle":
        return dx * dx + dy * dy <= r * r
    if kind == "square":
        return (np.abs(dx) <= r * 0.85) & (np.abs(dy) <= r * 0.85)
    if kind == "triangle":  # apex up, base at the bottom
        return (dy <= r) & (dy >= -r) & (np.abs(dx) <= (dy + r) * 0.55)
    if kind == "cross":
        arm = r / 3
        return ((np.abs(dx) <= arm) & (np.abs(dy) <= r)) | ((np.abs(dy) <= arm) & (np.abs(dx) <= r))
    raise ValueError(kind)


def make_image(rng, size=SIZE):
    """Returns (RGB uint8 [size, size, 3], mask bool [size, size], label)."""
    label = int(rng.integers(len(CLASSES)))
    r = rng.uniform(5.0, 9.0)
    cx, cy = rng.uniform(r + 1, size - r - 1, 2)
    mask = shape_mask(CLASSES[label], cx, cy, r, size)
    background = rng.uniform(0, 110, 3)
    color = rng.uniform(140, 255, 3)
    img = np.where(mask[..., None], color, background) + rng.normal(0, 12, (size, size, 3))
    return np.clip(img, 0, 255).round().astype(np.uint8), mask, label


def generate(n, seed, size=SIZE):
    rng = np.random.default_rng(seed)
    return [make_image(rng, size) for _ in range(n)]


def write_png(path, pixels):
    """8-bit grayscale [H, W] or RGB [H, W, 3] PNG."""
    a = np.ascontiguousarray(pixels, dtype=np.uint8)
    h, w = a.shape[:2]
    color_type = 2 if a.ndim == 3 else 0
    raw = b"".join(b"\x00" + a[y].tobytes() for y in range(h))

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, color_type, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
        f.write(chunk(b"IEND", b""))


def write_samples(folder, samples, prefix="shape"):
    """PNG + mask PNG per sample; returns the list of {image, mask, label, class} records."""
    os.makedirs(folder, exist_ok=True)
    records = []
    for k, (img, mask, label) in enumerate(samples):
        name = f"{prefix}_{k}_{CLASSES[label]}"
        write_png(os.path.join(folder, name + ".png"), img)
        write_png(os.path.join(folder, name + "_mask.png"), mask.astype(np.uint8) * 255)
        records.append({"image": name + ".png", "mask": name + "_mask.png", "label": label, "class": CLASSES[label]})
    return records


if __name__ == "__main__":
    out = sys.argv[1]
    recs = write_samples(out, generate(int(sys.argv[2]) if len(sys.argv) > 2 else 8,
                                       int(sys.argv[3]) if len(sys.argv) > 3 else 0))
    with open(os.path.join(out, "labels.json"), "w") as f:
        json.dump(recs, f, indent=1)
