# SPDX-License-Identifier: MIT
"""Reads the learned position table straight from a model.safetensors (its own header parser, not the engine's) and
prints the largest |cosine similarity of rows 0 .. T - 1 - learned_positions.npy| for the C++ test to bound.

usage: learned_positions.py MODEL.safetensors TENSOR_NAME FOLDER
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


def main(weights, name, folder):
    got = np.load(f"{folder}/learned_positions.npy").astype(np.float64)
    table = read_tensor(weights, name)[: got.shape[0]]
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    print(json.dumps({"err": float(np.abs(unit @ unit.T - got).max()), "rows": int(got.shape[0])}))


if __name__ == "__main__":
    main(*sys.argv[1:])
