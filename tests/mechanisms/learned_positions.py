# SPDX-License-Identifier: MIT
"""Reads a learned position parameter straight from a model.safetensors (its own header parser, not the engine's)
and prints how far the CLI's copy is from it, for the C++ test to bound:
- a position table: the largest |cosine similarity of rows OFFSET .. OFFSET + T - 1 - learned_positions.npy|
  (OFFSET 2 for BART's BartLearnedPositionalEmbedding, else 0);
- `--relative-bias`: T5's relative_attention_bias [buckets, heads], the largest |table - relative_bias.npy|.

usage: learned_positions.py MODEL.safetensors TENSOR_NAME FOLDER [OFFSET | --relative-bias]
"""
import json
import struct
import sys

import numpy as np


def read_tensor(path, name):
    with open(path, "rb") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(size))
        entry = header[name]
        assert entry["dtype"] == "F32", entry["dtype"]
        start, end = entry["data_offsets"]
        f.seek(8 + size + start)
        return np.frombuffer(f.read(end - start), "<f4").reshape(entry["shape"]).astype(np.float64)


def main(weights, name, folder, mode="0"):
    if mode == "--relative-bias":
        got = np.load(f"{folder}/relative_bias.npy").astype(np.float64)
        table = read_tensor(weights, name)
        same = got.shape == table.shape
        print(json.dumps({"err": float(np.abs(table - got).max()) if same else None, "shape": list(got.shape)}))
        return
    got = np.load(f"{folder}/learned_positions.npy").astype(np.float64)
    offset = int(mode)
    table = read_tensor(weights, name)[offset: offset + got.shape[0]]
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    print(json.dumps({"err": float(np.abs(unit @ unit.T - got).max()), "rows": int(got.shape[0])}))


if __name__ == "__main__":
    main(*sys.argv[1:])
