# SPDX-License-Identifier: MIT
"""A GGUF v3 writer in NumPy (F32 and F16 tensors, scalar / string / array metadata), laid out as ggml's
gguf_write_to_file: header, key-values, tensor infos, data section aligned to 32 with each tensor at a multiple of 32."""
import struct
import numpy as np

ALIGN = 32
U32, I32, F32, BOOL, STRING, ARRAY = 4, 5, 6, 7, 8, 9
GGML_TYPES = {'F32': (0, '<f4'), 'F16': (1, '<f2')}


def _string(s):
    b = s.encode()
    return struct.pack('<Q', len(b)) + b


def _value(v):
    """(gguf type, bytes) of a metadata value: bool, int (u32), float (f32), str, or a list of str / int / float."""
    if isinstance(v, bool):
        return BOOL, struct.pack('<?', v)
    if isinstance(v, int):
        return U32, struct.pack('<I', v)
    if isinstance(v, float):
        return F32, struct.pack('<f', v)
    if isinstance(v, str):
        return STRING, _string(v)
    items = [_value(x) for x in v]
    kind = items[0][0] if items else I32
    return ARRAY, struct.pack('<IQ', kind, len(items)) + b''.join(b for _, b in items)


def write(path, metadata, tensors):
    """metadata: {key: value} in order; tensors: [(name, array in PyTorch order, 'F32' | 'F16')] in order."""
    out = [b'GGUF', struct.pack('<IQQ', 3, len(tensors), len(metadata))]
    for key, v in metadata.items():
        kind, raw = _value(v)
        out += [_string(key), struct.pack('<I', kind), raw]
    blobs, offset = [], 0
    for name, a, dtype in tensors:
        kind, np_type = GGML_TYPES[dtype]
        raw = np.ascontiguousarray(a).astype(np_type).tobytes()
        ne = list(reversed(a.shape))  # ggml order: ne0 is the row length
        out += [_string(name), struct.pack('<I', len(ne)), struct.pack(f'<{len(ne)}Q', *ne),
                struct.pack('<IQ', kind, offset)]
        blobs.append(raw + b'\0' * (-len(raw) % ALIGN))
        offset += len(blobs[-1])
    head = b''.join(out)
    with open(path, 'wb') as f:
        f.write(head + b'\0' * (-len(head) % ALIGN) + b''.join(blobs))
