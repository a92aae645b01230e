# SPDX-License-Identifier: MIT
"""Writes and reads .safetensors files from/to numpy arrays (the format is simple enough not to need the package)."""
import json
import struct

import numpy as np

DTYPES = {np.dtype("float32"): "F32", np.dtype("float16"): "F16", np.dtype("int64"): "I64"}


def save_file(tensors, path, metadata=None):
    header, offset, blobs = {}, 0, []
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name])
        data = a.astype(a.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": DTYPES[a.dtype], "shape": list(a.shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    if metadata:
        header["__metadata__"] = metadata
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def load_file(path):
    """Reads a .safetensors file (F32/F16/I64, and BF16 as its uint16 bits) into numpy arrays."""
    names = {v: k for k, v in DTYPES.items()} | {"BF16": np.dtype("uint16")}
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        blob = f.read()
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        s, e = t["data_offsets"]
        out[name] = np.frombuffer(blob[s:e], dtype=names[t["dtype"]].newbyteorder("<")).reshape(t["shape"]).copy()
    return out
