# SPDX-License-Identifier: MIT
"""Scenes of two or three coloured shapes (shapes_gen.py's masks) on a noisy background, with a caption whose object
words are grounded: every shape and colour word names one object, whose pixel mask is known.

Two objects: "a red circle above a blue square" (the upper one first) or "a red circle left of a blue square" (the
left one first), the relation being the axis along which they are clearly apart. Three objects: "a red circle , a
blue square and a green cross", listed left to right.

usage: python3 caption_scenes.py OUT_DIR [N] [SEED] writes N scenes as scene_K.png + scene_K.json (caption, masks)."""
import json
import os
import sys

import numpy as np

import shapes_gen

SIZE = 48
COLOURS = {"red": (230, 40, 40), "green": (40, 200, 60), "blue": (50, 80, 240), "yellow": (235, 220, 40)}


def _place(rng, n):
    """n (cx, cy, r) far enough apart not to touch, or None."""
    objects = []
    for _ in range(n):
        r = rng.uniform(6.5, 9.5)
        cx, cy = rng.uniform(r + 1, SIZE - r - 1, 2)
        if any(np.hypot(cx - x, cy - y) < r + q + 3 for x, y, q in objects):
            return None
        objects.append((cx, cy, r))
    return objects


def _relation(a, b):
    """'above' / 'left of' with the first object of the pair first, or None when the layout is ambiguous."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    if abs(dy) > 1.6 * abs(dx) and abs(dy) > 8:
        return ("above", (0, 1)) if dy > 0 else ("above", (1, 0))
    if abs(dx) > 1.6 * abs(dy) and abs(dx) > 8:
        return ("left of", (0, 1)) if dx > 0 else ("left of", (1, 0))
    return None


def make_scene(rng):
    """Returns (RGB uint8 [SIZE, SIZE, 3], caption, objects) where objects are, in caption order, dicts with
    shape, colour, mask (bool [SIZE, SIZE]) and the caption's word indexes of their colour and shape words."""
    while True:
        n = 2 if rng.random() < 0.6 else 3
        places = _place(rng, n)
        if places is None:
            continue
        if n == 2:
            rel = _relation(*places)
            if rel is None:
                continue
            relation, order = rel
            places = [places[i] for i in order]
        else:
            xs = sorted(p[0] for p in places)
            if min(b - a for a, b in zip(xs, xs[1:])) < 6:
                continue
            places = sorted(places, key=lambda p: p[0])
        colours = rng.choice(list(COLOURS), n, replace=False)
        shapes = rng.choice(shapes_gen.CLASSES, n)
        break
    img = rng.uniform(0, 90, 3) + rng.normal(0, 10, (SIZE, SIZE, 3))
    objects, words = [], []
    for k, ((cx, cy, r), colour, shape) in enumerate(zip(places, colours, shapes)):
        mask = shapes_gen.shape_mask(str(shape), cx, cy, r, SIZE)
        img = np.where(mask[..., None], np.array(COLOURS[colour]) + rng.normal(0, 10, 3), img)
        if k > 0:
            words += relation.split() if n == 2 else ([","] if k == 1 else ["and"])
        words += ["a", str(colour), str(shape)]
        objects.append({"shape": str(shape), "colour": str(colour), "mask": mask,
                        "colour_word": len(words) - 2, "shape_word": len(words) - 1})
    return np.clip(img, 0, 255).round().astype(np.uint8), " ".join(words), objects


def generate(n, seed):
    rng = np.random.default_rng(seed)
    return [make_scene(rng) for _ in range(n)]


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for k, (img, caption, objects) in enumerate(generate(int(sys.argv[2]) if len(sys.argv) > 2 else 8,
                                                         int(sys.argv[3]) if len(sys.argv) > 3 else 0)):
        shapes_gen.write_png(os.path.join(out, f"scene_{k}.png"), img)
        with open(os.path.join(out, f"scene_{k}.json"), "w") as f:
            json.dump({"caption": caption, "objects": [dict(o, mask=o["mask"].astype(int).tolist()) for o in objects]}, f)
