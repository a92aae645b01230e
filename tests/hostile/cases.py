# SPDX-License-Identifier: MIT
"""Hostile-input cases: each builds a bad file (or folder) from genuine ../shared fixtures and says how the CLI must
refuse it. Generated at test time into the build tree; nothing here is a committed blob.

A case is Case(name, build, argv, fragment): build(dir) writes the files and returns the path the message must name
(the culprit file); argv is the CLI command with {dir} for the case folder; fragment is the text that must appear in
the error. ok=True cases must succeed (hostile but valid input, e.g. a 26k-character Marian language tag)."""
import json
import os
import shutil
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List

import numpy as np

SHARED = Path(os.environ.get("ATTNSCOPE_SHARED", Path(__file__).resolve().parents[3] / "shared"))
SOURCE = Path(__file__).resolve().parents[2]
TINY = SHARED / "fixtures" / "hf-tiny"
MARIAN_DEMO = SOURCE / "resources" / "models" / "demo-translate-marian"
GRU_DEMO = SOURCE / "resources" / "models" / "demo-translate-gru"
STORIES = SHARED / "models" / "stories260K"
DEEP = 70000  # deeper than any stack survives recursively; the parsers must refuse it at depth 64


@dataclass
class Case:
    name: str
    build: Callable[[Path], Path]
    argv: List[str]
    fragment: str
    ok: bool = False
    rss_mb: int = 400
    seconds: float = 30.0
    tags: List[str] = field(default_factory=list)


def copy_model(src: Path, dst: Path, skip=()):
    dst.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        if f.is_file() and f.name not in skip:
            shutil.copy(f, dst / f.name)
            os.chmod(dst / f.name, 0o644)
    return dst


def special_file(target: Path, kind: str):
    """A file that is not one: a FIFO with no writer, a link to /dev/zero, a folder, or a 17 MiB sparse file."""
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "zero":
        os.symlink("/dev/zero", target)
    elif kind == "dir":
        target.mkdir()
    elif kind == "huge":
        with open(target, "wb") as f:
            f.truncate(17 << 20)
    return target


def load_json(p: Path):
    return json.loads(p.read_text())


def write_json(p: Path, value):
    p.write_text(json.dumps(value))
    return p


def deep(depth=DEEP, open_="[", close="]", inner="1"):
    return open_ * depth + inner + close * depth


# ---------------------------------------------------------------- safetensors


def safetensors_bytes(header, data=b"", raw_header=None):
    text = raw_header if raw_header is not None else json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


def st_case(header=None, data=b"", raw_header=None, length=None, truncate=None):
    """A gpt2 folder whose model.safetensors is crafted (header length field overridden, or cut to `truncate` bytes)."""

    def build(d: Path):
        copy_model(TINY / "gpt2", d, skip=("model.safetensors",))
        blob = safetensors_bytes(header, data, raw_header)
        if length is not None:
            blob = struct.pack("<Q", length) + blob[8:]
        if truncate is not None:
            blob = blob[:truncate]
        (d / "model.safetensors").write_bytes(blob)
        return d / "model.safetensors"

    return build


def st_sparse(d: Path):
    """A gpt2 folder whose model.safetensors holds a 64 GiB F32 embedding as a sparse file (no disk, no memory)."""
    copy_model(TINY / "gpt2", d, skip=("model.safetensors",))
    n = 2**36
    blob = safetensors_bytes({"wte.weight": {"dtype": "F32", "shape": [2**24, 2**10], "data_offsets": [0, n]}})
    with open(d / "model.safetensors", "wb") as f:
        f.write(blob)
        f.truncate(len(blob) + n)
    return d / "model.safetensors"


def st_special(kind):
    def build(d: Path):
        copy_model(TINY / "gpt2", d, skip=("model.safetensors",))
        return special_file(d / "model.safetensors", kind)

    return build


def index_case(weight_map=None, raw=None, shard_link=None, outside_copy=False):
    """A gpt2 folder with model.safetensors.index.json and one shard."""

    def build(d: Path):
        copy_model(TINY / "gpt2", d, skip=("model.safetensors",))
        shard = d / "model-00001-of-00001.safetensors"
        if shard_link == "passwd":
            os.symlink("/etc/passwd", shard)
        elif outside_copy:
            other = d.parent / (d.name + "-elsewhere")
            other.mkdir(exist_ok=True)
            shutil.copy(TINY / "gpt2" / "model.safetensors", other / "model.safetensors")
            os.symlink(other / "model.safetensors", shard)
        else:
            shutil.copy(TINY / "gpt2" / "model.safetensors", shard)
        index = d / "model.safetensors.index.json"
        if raw is not None:
            index.write_text(raw)
        else:
            wm = weight_map if weight_map is not None else {"wte.weight": shard.name}
            write_json(index, {"metadata": {}, "weight_map": wm})
        return index

    return build


def single_link_case(d: Path):
    """A folder whose model.safetensors links to a copy in another folder: refused before anything is read."""
    copy_model(TINY / "gpt2", d, skip=("model.safetensors",))
    other = d.parent / (d.name + "-elsewhere")
    other.mkdir(exist_ok=True)
    shutil.copy(TINY / "gpt2" / "model.safetensors", other / "model.safetensors")
    os.symlink(other / "model.safetensors", d / "model.safetensors")
    return d / "model.safetensors"


def hub_snapshot(d: Path, weights_name: str) -> Path:
    """Genuine, not hostile: the Hugging Face hub cache keeps files in blobs/ and links snapshots/REV/NAME to
    ../../blobs/HASH. Lays out gpt2 so, with its weights as `weights_name`; returns the snapshot folder."""
    snapshot = d / "snapshots" / "0123abc"
    copy_model(TINY / "gpt2", snapshot, skip=("model.safetensors",))
    (d / "blobs").mkdir()
    shutil.copy(TINY / "gpt2" / "model.safetensors", d / "blobs" / "9f8e7d")
    os.symlink("../../blobs/9f8e7d", snapshot / weights_name)
    return snapshot


def single_hub_cache_case(d: Path):
    """A hub-cache snapshot whose single model.safetensors links to ../../blobs/: it must load."""
    return hub_snapshot(d, "model.safetensors")


def hub_cache_case(d: Path):
    """A hub-cache snapshot whose index lists one shard that links to ../../blobs/: it must load."""
    snapshot = hub_snapshot(d, "model-00001-of-00001.safetensors")
    header_len = struct.unpack("<Q", (TINY / "gpt2" / "model.safetensors").read_bytes()[:8])[0]
    names = json.loads((TINY / "gpt2" / "model.safetensors").read_bytes()[8:8 + header_len])
    wm = {k: "model-00001-of-00001.safetensors" for k in names if k != "__metadata__"}
    write_json(snapshot / "model.safetensors.index.json", {"metadata": {}, "weight_map": wm})
    return snapshot


# ---------------------------------------------------------------- config.json


def config_case(base, edit=None, raw=None, special=None):
    def build(d: Path):
        copy_model(TINY / base if (TINY / base).exists() else base, d, skip=("config.json",))
        target = d / "config.json"
        if special:
            special_file(target, special)
        elif raw is not None:
            target.write_text(raw(load_json((TINY / base if (TINY / base).exists() else base) / "config.json")))
        else:
            cfg = load_json((TINY / base if (TINY / base).exists() else base) / "config.json")
            edit(cfg)
            write_json(target, cfg)
        return target

    return build


def raw_with(key_text):
    """config.json text with one raw JSON member inserted first (lets a case write what json.dumps cannot)."""
    return lambda cfg: "{" + key_text + ", " + json.dumps(cfg)[1:]


def setv(**kv):
    def edit(cfg):
        cfg.update(kv)

    return edit


def delv(*keys):
    def edit(cfg):
        for k in keys:
            cfg.pop(k, None)

    return edit


def both(*edits):
    def edit(cfg):
        for e in edits:
            e(cfg)

    return edit


# ---------------------------------------------------------------- .npy


def npy_bytes(header_dict_text, payload=b"", version=1, header_len=None):
    text = header_dict_text.encode("latin1")
    pad = (64 - (10 + len(text) + 1) % 64) % 64
    text = text + b" " * pad + b"\n"
    n = len(text) if header_len is None else header_len
    if version == 1:
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", n) + text + payload
    return b"\x93NUMPY" + bytes([version, 0]) + struct.pack("<I", n) + text + payload


def npy_header(shape_text, descr="<f4", fortran="False"):
    return "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape_text)


# ---------------------------------------------------------------- tokenizers


def tok_json_case(edit):
    """A tokenizer.json (byte-level BPE) built from the gpt2 fixture's vocab.json + merges.txt, then edited."""

    def build(d: Path):
        copy_model(TINY / "gpt2", d)
        vocab = load_json(TINY / "gpt2" / "vocab.json")
        merges = [l for l in (TINY / "gpt2" / "merges.txt").read_text().splitlines()[1:] if l]
        tj = {
            "version": "1.0",
            "added_tokens": [],
            "normalizer": None,
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
            "post_processor": None,
            "decoder": {"type": "ByteLevel"},
            "model": {"type": "BPE", "vocab": vocab, "merges": merges},
        }
        out = edit(tj)
        target = d / "tokenizer.json"
        target.write_text(out if isinstance(out, str) else json.dumps(tj))
        return target

    return build


def post_processor(kind, ids=None, special="<|endoftext|>"):
    """A tokenizer.json post-processor as transformers writes them, around the gpt2 fixture's <|endoftext|> (id 299):
    TemplateProcessing adds it after the text, RobertaProcessing around it; `ids` overrides the special's ids."""
    eos = ids if ids is not None else [299]
    if kind == "template":
        return {"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": special, "type_id": 0}}],
                "special_tokens": {"<|endoftext|>": {"id": "<|endoftext|>", "ids": eos, "tokens": ["<|endoftext|>"]}}}
    return {"type": "RobertaProcessing", "sep": ["<|endoftext|>", eos[0]], "cls": ["<|endoftext|>", eos[0]]}


def edited(tj, **changes):
    """tj with top-level keys replaced (for tok_json_case edits that are expressions)."""
    tj.update(changes)
    return tj


def with_vocab_size(n, build_case):
    """build_case, then config.json's vocab_size set to n (for a tokenizer larger than the fixture's)."""

    def build(d: Path):
        target = build_case(d)
        cfg = load_json(d / "config.json")
        cfg["vocab_size"] = n
        write_json(d / "config.json", cfg)
        return target

    return build


def gpt2_file_case(filename, transform=None, special=None):
    """The gpt2 folder with one tokenizer file replaced by transform(original text), or by a special file."""

    def build(d: Path):
        copy_model(TINY / "gpt2", d)
        if special:
            return special_file(d / filename, special)
        target = d / filename
        target.write_text(transform((TINY / "gpt2" / filename).read_text()))
        return target

    return build


def marian_case(filename=None, transform=None):
    def build(d: Path):
        copy_model(MARIAN_DEMO, d)
        if filename is None:
            return d
        target = d / filename
        target.write_text(transform(target.read_text()))
        return target

    return build


# ---------------------------------------------------------------- llama2.c


def bin_case(transform=None, special=None):
    def build(d: Path):
        d.mkdir(parents=True, exist_ok=True)
        shutil.copy(STORIES / "tok512.bin", d / "tok512.bin")
        target = d / "model.bin"
        if special:
            special_file(target, special)
        else:
            target.write_bytes(transform((STORIES / "stories260K.bin").read_bytes()))
        return target

    return build


def llama2c_header(raw: bytes, **fields):
    names = ["dim", "hidden_dim", "n_layers", "n_heads", "n_kv_heads", "vocab_size", "seq_len"]
    values = list(struct.unpack("<7i", raw[:28]))
    for k, v in fields.items():
        values[names.index(k)] = v
    return struct.pack("<7i", *values) + raw[28:]


# ---------------------------------------------------------------- GGUF


def gguf_with_long_key_array(d: Path):
    """The genuine stories260K Q8_0 GGUF with one more metadata key in front: a 400,000-byte name holding an array of
    400,000 uint8. The reader built a message text holding the key for every element (160 GB of copying, minutes);
    it must load in a second. The extra bytes are a multiple of 64, so the tensor data stays aligned."""
    d.mkdir(parents=True, exist_ok=True)
    raw = (SHARED / "fixtures" / "gguf" / "stories260K" / "stories260K-Q8_0.gguf").read_bytes()
    key = b"k" * 400000
    n = 400000
    n += (-(8 + len(key) + 4 + 4 + 8 + n)) % 64
    kv = struct.pack("<Q", len(key)) + key + struct.pack("<IIQ", 9, 0, n) + b"\x01" * n
    magic, version, tensors, kvs = struct.unpack("<4sIQQ", raw[:24])
    target = d / "model.gguf"
    target.write_bytes(struct.pack("<4sIQQ", magic, version, tensors, kvs + 1) + kv + raw[24:])
    return target


# ---------------------------------------------------------------- alignment files


def align_case(gold=None, special=None):
    def build(d: Path):
        d.mkdir(parents=True, exist_ok=True)
        (d / "src.txt").write_text("the cat .\n")
        (d / "tgt.txt").write_text("le chat .\n")
        target = d / "gold.txt"
        if special:
            special_file(target, special)
        else:
            target.write_text(gold)
        return target

    return build


def align_src_fifo(d: Path):
    d.mkdir(parents=True, exist_ok=True)
    (d / "tgt.txt").write_text("le chat .\n")
    return special_file(d / "src.txt", "fifo")


def preproc_case(edit=None, raw=None):
    def build(d: Path):
        copy_model(TINY / "vit", d)
        target = d / "preprocessor_config.json"
        if raw is not None:
            target.write_text(raw)
        else:
            cfg = load_json(target)
            edit(cfg)
            write_json(target, cfg)
        return target

    return build


def model_with_file(model, name, blob):
    """A copy of the hf-tiny MODEL folder with NAME (an input such as input.npy) holding `blob`."""

    def build(d: Path):
        copy_model(TINY / model, d)
        (d / name).write_bytes(blob)
        return d / name

    return build


def vit_with_npy(blob):
    return model_with_file("vit", "input.npy", blob)


def whisper_with_npy(blob):
    return model_with_file("whisper", "features.npy", blob)


I = ["info", "{dir}"]
TOK = ["tokenize", "{dir}", "--text", "hello world"]
CLASSIFY = ["classify", "{dir}", "--pixel-values", "{dir}/input.npy"]
ROLLOUT = ["rollout", "{dir}", "--pixel-values", "{dir}/input.npy", "--out", "{dir}/out.npy"]
WHISPER = ["attention", "{dir}", "--features", "{dir}/features.npy", "--out", "{dir}/out"]
ALIGN = ["align", str(MARIAN_DEMO), "--src", "{dir}/src.txt", "--tgt", "{dir}/tgt.txt", "--gold", "{dir}/gold.txt"]
F32 = lambda shape: {"dtype": "F32", "shape": shape, "data_offsets": [0, 4 * int(np.prod(shape))]}
WRAP = 7 * 2**32  # (1, WRAP, WRAP) wraps the int64 product to 0

# .npy pixel values through `classify`: (name, file bytes, expected fragment).
NPY_PIXEL_CASES = [
    ("npy_classify_shape_wraps", npy_bytes(npy_header("(1, %d, %d)" % (WRAP, WRAP))),
     "has more elements than fit in 64 bits"),
    ("npy_bytes_wrap", npy_bytes(npy_header("(%d,)" % 2**62)),
     "does not fit in 64 bits"),
    ("npy_long_descr", npy_bytes(npy_header("(1, 2, 2)", descr="<" + "f" * 26000)),
     "expected a float32/float64 array, found dtype <fffffffffffffffffff..."),
    ("npy_negative_dim", npy_bytes(npy_header("(1, -28, 28)")),
     "npy shape has the negative dimension '-28'"),
    ("npy_truncated_payload", npy_bytes(npy_header("(3, 32, 32)"), b"\0" * 10),
     "truncated .npy data: shape [3, 32, 32] needs 12288 bytes, have 10"),
    ("npy_bad_magic", b"NOTNUMPY" + b"\0" * 100,
     "not a .npy file (bad magic)"),
    ("npy_header_past_end", npy_bytes(npy_header("(1,)"), header_len=60000),
     "truncated .npy header"),
    ("npy_v2_header_past_end", npy_bytes(npy_header("(1,)"), version=2, header_len=2**31),
     "truncated .npy header"),
    ("npy_dim_not_integer", npy_bytes(npy_header("(1, 'a', 3)")),
     "npy shape has the dimension ''a'', not a non-negative integer"),
    ("npy_dim_too_many_digits", npy_bytes(npy_header("(99999999999999999999,)")),
     "npy shape dimension '99999999999999999999' does not fit in 64 bits"),
    ("npy_no_shape", npy_bytes("{'descr': '<f4', 'fortran_order': False}"),
     "npy header has no shape"),
    ("npy_20000_dimensions", npy_bytes(npy_header("(" + "1, " * 20000 + ")")),
     "npy shape has more than 64 dimensions"),
    ("npy_int_for_pixels", npy_bytes(npy_header("(1,)", descr="<i8"), b"\0" * 8),
     "expected a float32/float64 array, found dtype <i8"),
    ("npy_pixels_zero_size", npy_bytes(npy_header("(3, 0, 0)")),
     "pixel values [3, 0, 0] do not fit this model"),
    ("npy_pixels_one_channel", npy_bytes(npy_header("(1, 32, 32)"), b"\0" * 4096),
     "pixel values [1, 32, 32] do not fit this model: it needs 3 channels"),
    ("npy_version_9", b"\x93NUMPY\x09\x00" + b"\0" * 100,
     "unsupported .npy version 9"),
]

CASES = [
    # config.json
    Case("config_deep_array", config_case("gpt2", raw=raw_with('"deep": ' + deep())), I, "nests deeper than 64 levels"),
    Case("config_deep_object", config_case("gpt2", raw=raw_with('"deep": ' + deep(open_='{"a":', close="}"))), I,
         "nests deeper than 64 levels"),
    Case("config_deep_field", config_case("gpt2", raw=raw_with('"n_layer": ' + deep(100))), I, "nests deeper"),
    Case("config_duplicate_key", config_case("gpt2", raw=raw_with('"n_layer": 99')), I, "has the key \"n_layer\" twice"),
    Case("config_not_object", config_case("gpt2", raw=lambda c: "[1, 2, 3]"), I, "config is not a JSON object"),
    Case("config_truncated", config_case("gpt2", raw=lambda c: json.dumps(c)[:200]), I, "malformed JSON"),
    Case("config_garbage_token", config_case("gpt2", raw=lambda c: "{\"a\": " + "x" * 200000 + "}"), I, "malformed JSON"),
    # Wide, not deep: 400k sibling objects (nlohmann's callback parser rescanned the parent after each: minutes).
    Case("config_wide_array_of_objects", config_case("gpt2", raw=raw_with('"wide": [' + "{}," * 400000 + "{}]")), I,
         "", ok=True, seconds=5),  # 0.2 s now; over 10 s before
    Case("config_fifo", config_case("gpt2", special="fifo"), I, "not a regular file", seconds=10),
    Case("config_dev_zero", config_case("gpt2", special="zero"), I, "not a regular file", seconds=10),
    Case("config_directory", config_case("gpt2", special="dir"), I, "is a folder"),
    Case("config_huge_sparse", config_case("gpt2", special="huge"), I, "more than the 16 MiB accepted"),
    Case("config_4x_n_embd_overflow", config_case("gpt2", both(setv(n_embd=2**62, n_head=1), delv("n_inner"))), I,
         "4 * n_embd is too large"),
    Case("config_long_string_for_int", config_case("gpt2", setv(n_layer="9" * 200000)), I,
         "field \"n_layer\" must be an integer, got \"9999"),
    Case("config_object_for_int", config_case("gpt2", setv(n_head={"a": [1, 2, 3]})), I,
         "field \"n_head\" must be an integer, got an object with 1 keys"),
    Case("config_negative_heads", config_case("gpt2", setv(n_head=-4)), I, "must be positive, got -4"),
    Case("config_rope_theta_zero", config_case("llama", setv(rope_theta=0)), I, "rope_theta must be a finite number"),
    Case("config_rope_theta_negative", config_case("llama", setv(rope_theta=-10000.0)), I, "rope_theta must be"),
    Case("config_rope_scaling_deep", config_case("llama", raw=raw_with('"rope_scaling": ' + deep())), I, "nests deeper"),
    Case("config_vit_id2label_deep", config_case("vit", raw=raw_with('"id2label": {"0": ' + deep() + "}")), I,
         "nests deeper"),
    Case("config_vit_id2label_object", config_case("vit", setv(id2label={"0": {"name": "cat"}})), I,
         "id2label value for 0 must be a string, got an object"),
    Case("config_vit_id2label_huge_id", config_case("vit", setv(id2label={"99999999": "cat"})), I, "out of range"),
    Case("config_vit_negative_image", config_case("vit", setv(image_size=-32)), I, "image_size must be in 1..16384"),
    Case("config_vit_huge_image", config_case("vit", setv(image_size=2**40)), I, "image_size must be in 1..16384"),
    Case("config_rnn_bidirectional_yes", config_case(GRU_DEMO, setv(bidirectional="yes")),
         ["translate", "{dir}", "--tokens", "2"], "\"bidirectional\" must be true or false, got \"yes\""),
    Case("config_rnn_hidden_overflow", config_case(GRU_DEMO, both(setv(hidden_size=2**62), delv("decoder_hidden_size"))),
         ["translate", "{dir}", "--tokens", "2"], "the encoder output size is too large"),
    Case("config_marian_positions_2e7", config_case("marian", setv(max_position_embeddings=20000000)),
         ["attention", "{dir}", "--tokens", "1,2", "--out", "{dir}/out"], "max_position_embeddings 20000000 is more"),
    # safetensors
    Case("st_numel_times_dtype_wraps", st_case({"a": {"dtype": "F32", "shape": [2**62], "data_offsets": [0, 0]}}), I,
         "does not fit in 64 bits"),
    Case("st_shape_product_wraps", st_case({"a": {"dtype": "F32", "shape": [1, WRAP, WRAP], "data_offsets": [0, 0]}}),
         I, "has more elements than fit in 64 bits"),
    Case("st_four_huge_tensors", st_case({f"t{i}": {"dtype": "I8", "shape": [2**61], "data_offsets": [0, 0]}
                                          for i in range(4)}), I, "needs 2305843009213693952 bytes"),
    Case("st_dim_above_int64", st_case({"a": {"dtype": "F32", "shape": [2**63], "data_offsets": [0, 0]}}), I,
         "non-integer or negative dimension the number 9223372036854775808"),
    Case("st_deep_header", st_case(raw_header=deep().encode()), I, "nests deeper than 64 levels"),
    Case("st_deep_in_entry", st_case(raw_header=b'{"a": {"dtype": ' + deep().encode() + b"}}"), I, "nests deeper"),
    Case("st_duplicate_tensor", st_case(raw_header=b'{"a": ' + json.dumps(F32([1])).encode() + b', "a": '
                                        + json.dumps(F32([1])).encode() + b"}", data=b"\0" * 4), I,
         "has the key \"a\" twice in one object"),
    Case("st_header_len_huge", st_case({}, length=2**63), I, "exceeds the 100 MiB cap"),
    Case("st_header_past_end", st_case({}, length=5000), I, "runs past the end of the file"),
    Case("st_file_too_small", st_case(raw_header=b"", length=None, truncate=3), I,
         "file too small for a safetensors header"),
    Case("st_long_dtype", st_case({"a": {"dtype": "X" * 100000, "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 4), I,
         "unknown dtype \"XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX...\""),
    Case("st_negative_dim", st_case({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}, b"\0" * 4), I,
         "non-integer or negative dimension the number -1"),
    Case("st_100k_dimensions", st_case({"a": {"dtype": "F32", "shape": [1] * 100000, "data_offsets": [0, 4]}}), I,
         "shape has 100000 dimensions (at most 64)"),
    Case("st_float_dim", st_case({"a": {"dtype": "F32", "shape": [1.5], "data_offsets": [0, 4]}}, b"\0" * 4), I,
         "non-integer or negative dimension"),
    Case("st_offsets_past_end", st_case({"a": {"dtype": "F32", "shape": [2**30], "data_offsets": [0, 2**32]}}), I,
         "run past the data section"),
    Case("st_offsets_reversed", st_case({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 0]}}, b"\0" * 4), I,
         "data_offsets end before they begin"),
    Case("st_span_mismatch", st_case({"a": {"dtype": "F32", "shape": [10], "data_offsets": [0, 8]}}, b"\0" * 8), I,
         "needs 40 bytes but data_offsets span 8"),
    Case("st_overlap", st_case({"a": F32([2]), "b": F32([2])}, b"\0" * 8), I, "overlaps tensor"),
    Case("st_header_array", st_case([]), I, "header is not a JSON object"),
    Case("st_metadata_nonstring", st_case({"__metadata__": {"k": [1]}}), I, "__metadata__ value for 'k' is not a string"),
    Case("st_garbage_header", st_case(raw_header=bytes(range(256)) * 4), I, "malformed JSON header"),
    Case("st_fifo", st_special("fifo"), I, "not a regular file", seconds=10),
    Case("st_dev_zero", st_special("zero"), I, "is a link to a file outside the model folder", seconds=10),
    Case("st_single_links_outside", single_link_case, I, "weights file model.safetensors is a link to a file outside"),
    Case("st_single_hub_cache_blobs_load", single_hub_cache_case, ["attention", "{dir}/snapshots/0123abc", "--tokens",
         "1,2", "--out", "{dir}/out"], "", ok=True),
    Case("st_sparse_64gib_over_budget", st_sparse, ["attention", "{dir}", "--tokens", "1", "--out", "{dir}/out"],
         "of memory is available; refusing to start"),
    # sharded index
    Case("index_shard_links_to_passwd", index_case(shard_link="passwd"), I, "is a link to a file outside the model folder"),
    Case("index_shard_links_outside", index_case(outside_copy=True), I, "is a link to a file outside the model folder"),
    Case("index_hub_cache_blobs_load", hub_cache_case, ["info", "{dir}/snapshots/0123abc"], "", ok=True),
    Case("index_path_traversal", index_case({"wte.weight": "../../etc/passwd"}), I, "points outside the folder"),
    Case("index_deep", index_case(raw='{"weight_map": ' + deep(open_='{"a":', close="}") + "}"), I, "nests deeper"),
    Case("index_duplicate_key", index_case(raw='{"weight_map": {}, "weight_map": {}}'), I, "twice in one object"),
    Case("index_no_weight_map", index_case(raw='{"metadata": {}}'), I, "index has no \"weight_map\" object"),
    Case("index_missing_tensor", index_case({"no.such.tensor": "model-00001-of-00001.safetensors"}), I,
         "tensor 'no.such.tensor' listed in weight_map is missing"),
    # .npy inputs (ViT pixel values, Whisper log-mel features)
    Case("npy_rollout_shape_wraps", vit_with_npy(npy_bytes(npy_header("(1, %d, %d)" % (WRAP, WRAP)))), ROLLOUT,
         "has more elements than fit in 64 bits"),
    Case("npy_whisper_features_wrap", whisper_with_npy(npy_bytes(npy_header("(80, %d)" % (2**60 + 1)))), WHISPER,
         "has more elements than fit in 64 bits"),
    Case("npy_shape_unclosed", vit_with_npy(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2")),
         CLASSIFY, "npy header 'shape' is not a closed tuple"),
    Case("npy_features_zero_frames", whisper_with_npy(npy_bytes(npy_header("(80, 0)"))), WHISPER,
         "log-mel features [80, 0] do not fit this model"),
    Case("npy_features_too_long", whisper_with_npy(npy_bytes(npy_header("(80, 4000)"), b"\0" * 1280000)), WHISPER,
         "log-mel features [80, 4000] do not fit this model"),
    Case("npy_fifo", lambda d: special_file(copy_model(TINY / "vit", d) / "input.npy", "fifo"), CLASSIFY,
         "not a regular file", seconds=10),
    # tokenizer files
    Case("tokjson_vocab_id_1e8", tok_json_case(lambda tj: tj["model"]["vocab"].update({"Z" * 9: 10**8})),
         TOK + ["--tokenizer", "{dir}/tokenizer.json"], "has the id 100000000, outside 0.."),
    Case("tokjson_vocab_id_2e31", tok_json_case(lambda tj: tj["model"]["vocab"].update({"Z" * 9: 2**31})),
         TOK + ["--tokenizer", "{dir}/tokenizer.json"], "has the id 2147483648, outside 0.."),
    Case("tokjson_added_token_id_huge", tok_json_case(lambda tj: tj["added_tokens"].append(
        {"id": 10**9, "content": "<x>", "special": True})), TOK + ["--tokenizer", "{dir}/tokenizer.json"],
         "token '<x>' has the id 1000000000, outside 0.."),
    Case("tokjson_deep", tok_json_case(lambda tj: '{"model": ' + deep() + "}"),
         TOK + ["--tokenizer", "{dir}/tokenizer.json"], "nests deeper than 64 levels"),
    Case("tokjson_duplicate_vocab_key", tok_json_case(lambda tj: json.dumps(tj).replace('"vocab": {', '"vocab": {"a": 0, ')),
         TOK + ["--tokenizer", "{dir}/tokenizer.json"], "has the key \"a\" twice in one object"),
    # 60k added tokens (config.json's vocab_size says so): adding and splitting were linear scans per token.
    Case("tokjson_60k_added_tokens", with_vocab_size(60300, tok_json_case(lambda tj: tj["added_tokens"].extend(
        {"id": 300 + i, "content": "<a%d>" % i, "special": False} for i in range(60000)))),
         TOK + ["--tokenizer", "{dir}/tokenizer.json"], "", ok=True, seconds=3),  # 0.6 s now, 6 s before
    # Post-processors and added tokens (the parts the tokenizer.json fuzz seeds reach): ids from the file are checked
    # against the vocabulary, and a wrong shape is reported by section, in words.
    Case("tokjson_template_special_id_huge", tok_json_case(lambda tj: edited(
        tj, post_processor=post_processor("template", ids=[999999999]))), TOK + ["--tokenizer", "{dir}/tokenizer.json"],
         "special token id 999999999 is outside the vocabulary"),
    Case("tokjson_roberta_negative_id", tok_json_case(lambda tj: edited(
        tj, post_processor=post_processor("roberta", ids=[-7]))), TOK + ["--tokenizer", "{dir}/tokenizer.json"],
         "special token id -7 is outside the vocabulary"),
    Case("tokjson_template_unknown_special", tok_json_case(lambda tj: edited(
        tj, post_processor=post_processor("template", special="<cls>"))), TOK + ["--tokenizer", "{dir}/tokenizer.json"],
         "unexpected structure of tokenizer.json's 'post_processor': key '<cls>' not found"),
    Case("tokjson_roberta_cls_not_a_pair", tok_json_case(lambda tj: edited(
        tj, post_processor=dict(post_processor("roberta"), cls="oops"))), TOK + ["--tokenizer", "{dir}/tokenizer.json"],
         "unexpected structure of tokenizer.json's 'post_processor': cannot look up a key or index in a string"),
    Case("tokjson_added_token_id_string", tok_json_case(lambda tj: edited(
        tj, added_tokens=[{"id": "5", "content": "<x>", "special": True}])),
         TOK + ["--tokenizer", "{dir}/tokenizer.json"],
         "tokenizer.json: an added token's id is \"5\", not an integer id"),
    Case("tokjson_merge_100k_chars", tok_json_case(lambda tj: tj["model"]["merges"].append("x" * 100000)),
         TOK + ["--tokenizer", "{dir}/tokenizer.json"], 'merge "' + "x" * 40 + '..." is not "LEFT RIGHT"'),
    Case("tokjson_is_an_array", tok_json_case(lambda tj: "[1, 2]"), TOK + ["--tokenizer", "{dir}/tokenizer.json"],
         "unexpected structure of tokenizer.json's 'model': cannot look up a key or index in an array"),
    Case("marian_vocab_not_object", marian_case("vocab.json", lambda t: "[1, 2]"), TOK,
         "expected a JSON object of piece -> id"),
    Case("marian_vocab_shared_id", marian_case("vocab.json", lambda t: t.replace('"<unk>": 1', '"<unk>": 0', 1)),
         TOK, 'id 0 is given to both "</s>" and "<unk>"'),
    Case("vocabjson_id_huge", gpt2_file_case("vocab.json", lambda t: t.replace("{", '{"ZZZ": 123456789, ', 1)), TOK,
         "has the id 123456789, outside 0.."),
    Case("vocabjson_negative_id", gpt2_file_case("vocab.json", lambda t: t.replace("{", '{"ZZZ": -5, ', 1)), TOK,
         "has the id -5, outside 0.."),
    Case("merges_bad_line", gpt2_file_case("merges.txt", lambda t: t + "a b c\n"), TOK,
         "is not a merge \"LEFT RIGHT\""),
    Case("tokconfig_added_id_huge_text", gpt2_file_case("tokenizer_config.json", lambda t: json.dumps(
        dict(json.loads(t), added_tokens_decoder={"99999999999999999999999": {"content": "<x>"}}))), TOK,
         "added_tokens_decoder entry '99999999999999999999999' is malformed"),
    Case("tokconfig_added_id_1e7", gpt2_file_case("tokenizer_config.json", lambda t: json.dumps(
        dict(json.loads(t), added_tokens_decoder={"10000000": {"content": "<x>"}}))), TOK,
         "token '<x>' has the id 10000000, outside 0.."),
    Case("tokconfig_deep", gpt2_file_case("tokenizer_config.json", lambda t: deep()), TOK, "nests deeper"),
    Case("tokenizer_fifo", gpt2_file_case("other.json", special="fifo"), TOK + ["--tokenizer", "{dir}/other.json"],
         "not a regular file", seconds=10),
    Case("tokenizer_dev_zero", gpt2_file_case("vocab.txt", special="zero"), TOK + ["--tokenizer", "{dir}/vocab.txt"],
         "not a regular file", seconds=10),
    Case("marian_vocab_id_huge", marian_case("vocab.json", lambda t: t.replace("{", '{"ZZZ": 2000000000, ', 1)),
         TOK, "the id 2000000000 of \"ZZZ\" is outside 0.."),
    Case("marian_vocab_deep", marian_case("vocab.json", lambda t: deep()), TOK, "nests deeper"),
    Case("marian_language_tag_26k", marian_case(), ["tokenize", "{dir}", "--text", ">>" + "x" * 26000 + "<<"], "",
         ok=True),
    Case("marian_unclosed_tags_26k", marian_case(), ["tokenize", "{dir}", "--text", ">>" * 13000], "", ok=True),
    # llama2.c checkpoints
    Case("bin_truncated", bin_case(lambda b: b[:1000]), ["info", "{dir}/model.bin"], "truncated llama2.c checkpoint"),
    Case("bin_dim_huge", bin_case(lambda b: llama2c_header(b, dim=2**30)), ["info", "{dir}/model.bin"],
         "implausible dim/hidden_dim"),
    Case("bin_vocab_huge", bin_case(lambda b: llama2c_header(b, vocab_size=2**30)), ["info", "{dir}/model.bin"],
         "implausible vocab_size/seq_len"),
    Case("bin_fifo", bin_case(special="fifo"), ["info", "{dir}/model.bin"], "not a regular file", seconds=10),
    Case("bin_pickle", bin_case(lambda b: b"\x80\x02" + b[2:]), ["info", "{dir}/model.bin"], "this is a PyTorch pickle"),
    # GGUF
    Case("gguf_400k_key_over_400k_elements", gguf_with_long_key_array, ["info", "{dir}/model.gguf"], "", ok=True,
         seconds=5),
    # alignment files
    Case("naacl_sentence_2e8", align_case("1 1 1 S\n200000000 1 1 S\n"), ALIGN,
         "sentence number 200000000 is larger than the file's 2 lines"),
    Case("pharaoh_index_huge", align_case("0-0 99999999999999999999-1\n"), ALIGN, "is implausibly large"),
    Case("pharaoh_not_a_link", align_case("0-0 cat\n"), ALIGN, "link \"cat\" is not i-j or i?j"),
    Case("gold_fifo", align_case(special="fifo"), ALIGN, "not a regular file", seconds=10),
    Case("src_fifo", align_src_fifo, ALIGN[:4] + ["{dir}/tgt.txt"], "not a regular file", seconds=10),
    # ViT preprocessor_config.json
    Case("preproc_size_huge", preproc_case(setv(size={"height": 2**40, "width": 2**40})),
         ["classify", "{dir}", "--pixel-values", str(TINY / "vit" / "golden" / "item0" / "pixel_values.npy")],
         "must be an integer in 1..16384"),
    Case("preproc_deep", preproc_case(raw=deep()),
         ["classify", "{dir}", "--pixel-values", str(TINY / "vit" / "golden" / "item0" / "pixel_values.npy")], "nests deeper"),
]
CASES += [Case(name, vit_with_npy(blob), CLASSIFY, fragment) for name, blob, fragment in NPY_PIXEL_CASES]
