#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Resident memory and decode speed of half-precision and quantized weights at Llama-3.2-1B's shape.

usage: gguf_bench.py CLI DIR [--steps N] [--bf16-only] [--cold]
Writes random weights at that shape (16 layers, width 2048, 32 query / 8 KV heads, FFN 8192, vocab 128256, tied
embeddings) as DIR/llama1b-Q8_0.gguf, DIR/llama1b-Q4_K.gguf and DIR/llama1b-bf16/ (safetensors + config.json),
then runs `CLI generate MODEL --tokens 1 --steps 1` and `--steps N` (`--temperature 0 --backend cpu`) on each under
/usr/bin/time and prints file size, peak resident memory, the wall time of the one-step run (open + first step;
--cold: with the file evicted from the page cache first) and decode tok/s, with the share of the memory-bandwidth
limit (weight bytes read per token / a measured bandwidth of this machine: a large copy, read + write, and a large
read, a float32 dot product), the CPU time per decoded token (both runs' user + sys, their difference over N - 1)
and the weight bytes read per CPU-second, which say more than tok/s when other processes share the cores; and the
load average before each row."""
import json, os, re, struct, subprocess, sys, time
import numpy as np

cli, out = sys.argv[1], sys.argv[2]
steps = int(sys.argv[sys.argv.index('--steps') + 1]) if '--steps' in sys.argv else 16
L, D, H, KV, F, V = 16, 2048, 32, 8, 8192, 128256
HD = D // H
rng = np.random.default_rng(1)
os.makedirs(out, exist_ok=True)

def shapes():  # name, [out, in] in PyTorch order
    yield 'token_embd.weight', (V, D)
    for l in range(L):
        p = f'blk.{l}.'
        yield p + 'attn_norm.weight', (D,)
        yield p + 'attn_q.weight', (D, D)
        yield p + 'attn_k.weight', (KV * HD, D)
        yield p + 'attn_v.weight', (KV * HD, D)
        yield p + 'attn_output.weight', (D, D)
        yield p + 'ffn_norm.weight', (D,)
        yield p + 'ffn_gate.weight', (F, D)
        yield p + 'ffn_up.weight', (F, D)
        yield p + 'ffn_down.weight', (D, F)
    yield 'output_norm.weight', (D,)

def half(x): return np.full(x, 0.002, np.float16).view(np.uint8).reshape(-1, 2)

def blocks(kind, n):  # n elements of random blocks; scales small so activations stay finite
    if kind == 'q8_0':  # d, qs[32]
        b = np.empty((n // 32, 34), np.uint8); b[:, :2] = half(n // 32); b[:, 2:] = rng.integers(0, 256, (n // 32, 32), np.uint8)
        return 8, b
    b = rng.integers(0, 256, (n // 256, 144), np.uint8)  # q4_K: d, dmin, scales[12], qs[128]
    b[:, 0:2] = half(n // 256); b[:, 2:4] = half(n // 256)
    return 12, b

def write_gguf(path, kind):
    kv = [('general.architecture', 8, 'llama'), ('llama.block_count', 4, L), ('llama.context_length', 4, 2048),
          ('llama.embedding_length', 4, D), ('llama.feed_forward_length', 4, F), ('llama.attention.head_count', 4, H),
          ('llama.attention.head_count_kv', 4, KV), ('llama.rope.freq_base', 6, 500000.0),
          ('llama.attention.layer_norm_rms_epsilon', 6, 1e-5)]
    def s(x): b = x.encode(); return struct.pack('<Q', len(b)) + b
    head = b'GGUF' + struct.pack('<IQQ', 3, L * 9 + 2, len(kv))
    for k, t, v in kv:
        head += s(k) + struct.pack('<I', t) + (s(v) if t == 8 else struct.pack('<I' if t == 4 else '<f', v))
    infos, datas, off = b'', [], 0
    for name, shp in shapes():
        if len(shp) == 1: t, data = 0, np.ones(shp, np.float32).view(np.uint8).ravel()
        else: t, data = blocks(kind, shp[0] * shp[1])
        infos += s(name) + struct.pack('<I', len(shp)) + b''.join(struct.pack('<Q', d) for d in shp[::-1])
        infos += struct.pack('<IQ', t, off)
        datas.append(data); off += (data.nbytes + 31) // 32 * 32
    with open(path, 'wb') as f:
        f.write(head + infos); f.write(b'\0' * ((-f.tell()) % 32))
        for d in datas: f.write(d.tobytes()); f.write(b'\0' * ((-d.nbytes) % 32))

def write_bf16(folder):
    os.makedirs(folder, exist_ok=True)
    names = {'token_embd.weight': 'model.embed_tokens.weight', 'output_norm.weight': 'model.norm.weight'}
    hf = {'attn_norm': 'input_layernorm', 'attn_q': 'self_attn.q_proj', 'attn_k': 'self_attn.k_proj',
          'attn_v': 'self_attn.v_proj', 'attn_output': 'self_attn.o_proj', 'ffn_norm': 'post_attention_layernorm',
          'ffn_gate': 'mlp.gate_proj', 'ffn_up': 'mlp.up_proj', 'ffn_down': 'mlp.down_proj'}
    header, off, items = {}, 0, []
    for name, shp in shapes():
        m = re.match(r'blk\.(\d+)\.(\w+)\.weight', name)
        hname = names.get(name) or f'model.layers.{m[1]}.{hf[m[2]]}.weight'
        n = int(np.prod(shp)); header[hname] = {'dtype': 'BF16', 'shape': list(shp), 'data_offsets': [off, off + 2 * n]}
        items.append((n, len(shp))); off += 2 * n
    h = json.dumps(header).encode()
    with open(f'{folder}/model.safetensors', 'wb') as f:
        f.write(struct.pack('<Q', len(h)) + h)
        for n, rank in items:  # bf16 of N(0, 0.02) for matrices, 1.0 for norms
            v = (rng.standard_normal(n, np.float32) * 0.02) if rank == 2 else np.ones(n, np.float32)
            f.write((v.view(np.uint32) >> 16).astype(np.uint16).tobytes())
    json.dump({'model_type': 'llama', 'architectures': ['LlamaForCausalLM'], 'hidden_size': D, 'intermediate_size': F,
               'num_hidden_layers': L, 'num_attention_heads': H, 'num_key_value_heads': KV, 'vocab_size': V,
               'max_position_embeddings': 2048, 'rms_norm_eps': 1e-5, 'rope_theta': 500000.0,
               'tie_word_embeddings': True, 'hidden_act': 'silu'}, open(f'{folder}/config.json', 'w'))

def bandwidth():  # (bytes read + written per second by a large copy, bytes read per second by a dot product), best of 5
    a = np.ones(1 << 28, np.uint8); b = np.empty_like(a); x = np.ones(1 << 26, np.float32); y = np.ones_like(x)
    copy = read = 0
    for _ in range(5):
        t = time.perf_counter(); np.copyto(b, a); copy = max(copy, 2 * a.nbytes / (time.perf_counter() - t))
        t = time.perf_counter(); x.dot(y); read = max(read, 2 * x.nbytes / (time.perf_counter() - t))
    return copy, read

def evict(path):  # drop the file's pages from the page cache (only this file's)
    for f in [path] if path.endswith('.gguf') else [f'{path}/model.safetensors', f'{path}/config.json']:
        fd = os.open(f, os.O_RDONLY); os.fsync(fd); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)

def cpu_seconds(stderr):
    return sum(float(re.search(rf'{k} time \(seconds\): ([\d.]+)', stderr)[1]) for k in ('User', 'System'))

models = [(f'{out}/llama1b-Q8_0.gguf', lambda p: write_gguf(p, 'q8_0')),
          (f'{out}/llama1b-Q4_K.gguf', lambda p: write_gguf(p, 'q4_K')), (f'{out}/llama1b-bf16', write_bf16)]
if '--bf16-only' in sys.argv:  # just the folder bench/pytorch_llama_eager.py times against the engine
    models = models[2:]
for path, make in models:
    if not os.path.exists(path): make(path)
copy_bw, read_bw = bandwidth()
print(f'copy bandwidth {copy_bw / 1e9:.1f} GB/s, read bandwidth {read_bw / 1e9:.1f} GB/s; {steps} steps; '
      f'{os.cpu_count()} cores')
print('| weights | file | peak RSS | RSS / file | open + first step | decode tok/s | share of the copy / read limit '
      '| CPU per token | weights read per CPU-second | load before |')
print('|---|---|---|---|---|---|---|---|---|---|')
run = lambda path, n: subprocess.run(['/usr/bin/time', '-v', cli, 'generate', path, '--tokens', '1', '--steps', str(n),
                                      '--temperature', '0', '--backend', 'cpu'], capture_output=True, text=True)
for path, _ in models:
    size = os.path.getsize(path if path.endswith('.gguf') else f'{path}/model.safetensors')
    per_token = size  # every weight byte is read once per decoded token (the tied head reads the table again)
    load = os.getloadavg()[0]
    if '--cold' in sys.argv: evict(path)
    t = time.perf_counter()
    one = run(path, 1)
    first = time.perf_counter() - t
    r = run(path, steps)
    rss = int(re.search(r'Maximum resident set size \(kbytes\): (\d+)', r.stderr)[1]) * 1024
    tps = re.search(r'achieved tok/s: ([\d.]+)', r.stderr)
    tps = float(tps[1]) if tps else float('nan')
    cpu = (cpu_seconds(r.stderr) - cpu_seconds(one.stderr)) / (steps - 1)
    print(f'| {os.path.basename(path)} | {size / 1e9:.2f} GB | {rss / 1e9:.2f} GB | {rss / size:.2f} | {first:.1f} s '
          f'| {tps:.2f} | {100 * tps * per_token / copy_bw:.0f} % / {100 * tps * per_token / read_bw:.0f} % '
          f'| {1e3 * cpu:.0f} ms | {per_token / cpu / 1e9:.1f} GB/s | {load:.1f} |')
