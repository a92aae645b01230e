# SPDX-License-Identifier: MIT
"""Minimal safetensors reading and writing with NumPy (F32 only), for the reference checks in this folder."""
import json, struct
import numpy as np


def read(path):
    """{name: float32 array} of a safetensors file (F32 tensors only; anything else raises)."""
    with open(path, 'rb') as f:
        n = struct.unpack('<Q', f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == '__metadata__':
            continue
        if info['dtype'] != 'F32':
            raise ValueError(f"{path}: {name} is {info['dtype']}, only F32 is read here")
        a, b = info['data_offsets']
        out[name] = np.frombuffer(data[a:b], dtype='<f4').reshape(info['shape']).copy()
    return out


def write(path, tensors):
    """Writes {name: array} as F32."""
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name], dtype=np.float32)
        raw = a.astype('<f4').tobytes()
        header[name] = {'dtype': 'F32', 'shape': list(a.shape), 'data_offsets': [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b' ' * (-len(text) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(text)) + text + b''.join(blobs))
