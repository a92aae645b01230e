#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a copy of a T5 model with other relative-position bucketing, and the bucket maps HF would use for it.

usage: t5_bucket_copy.py SRC OUT NUM_BUCKETS MAX_DISTANCE ENCODER_TOKENS DECODER_TOKENS

OUT gets SRC's config.json with relative_attention_num_buckets / relative_attention_max_distance replaced, and
model.safetensors with each stack's relative_attention_bias cut to its first NUM_BUCKETS rows. It also gets
buckets_encoder.npy [S, S] (bidirectional) and buckets_decoder.npy [T, T] (one-sided): bucket(j - i) by a direct
transcription of transformers' T5Attention._relative_position_bucket (its float32 log, as torch evaluates it).
"""
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "train"))
from safetensors_io import load_file, save_file  # noqa: E402


def relative_position_bucket(relative_position, bidirectional, num_buckets, max_distance):
    relative_buckets = np.zeros_like(relative_position)
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).astype(np.int64) * num_buckets
        relative_position = np.abs(relative_position)
    else:
        relative_position = -np.minimum(relative_position, np.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    # log(0) only where is_small picks the exact branch; np.maximum keeps it out of the warnings.
    ratio = np.maximum(relative_position, 1).astype(np.float32) / np.float32(max_exact)
    scaled = np.log(ratio) / np.float32(math.log(max_distance / max_exact)) * np.float32(num_buckets - max_exact)
    if_large = max_exact + scaled.astype(np.int64)
    if_large = np.minimum(if_large, np.full_like(if_large, num_buckets - 1))
    return relative_buckets + np.where(is_small, relative_position, if_large)


def bucket_map(n, bidirectional, num_buckets, max_distance):
    positions = np.arange(n, dtype=np.int64)
    relative = positions[None, :] - positions[:, None]  # memory_position - query_position
    return relative_position_bucket(relative, bidirectional, num_buckets, max_distance).astype(np.float32)


def main():
    src, out, buckets, distance, enc, dec = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:7])
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(src, "config.json")) as f:
        config = json.load(f)
    config["relative_attention_num_buckets"] = buckets
    config["relative_attention_max_distance"] = distance
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    tensors = load_file(os.path.join(src, "model.safetensors"))
    for name in list(tensors):
        if name.endswith("relative_attention_bias.weight"):
            tensors[name] = np.ascontiguousarray(tensors[name][:buckets])
    save_file(tensors, os.path.join(out, "model.safetensors"))
    np.save(os.path.join(out, "buckets_encoder.npy"), bucket_map(enc, True, buckets, distance))
    np.save(os.path.join(out, "buckets_decoder.npy"), bucket_map(dec, False, buckets, distance))


if __name__ == "__main__":
    main()
