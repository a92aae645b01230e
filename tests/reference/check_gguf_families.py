#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""GGUF gemma and phi3 files against HF transformers' goldens. The shared GGUF fixtures hold llama files only, so the
public hf-tiny gemma and phi3 checkpoints are converted here the way llama.cpp's convert_hf_to_gguf.py does
(GemmaModel / Phi3MiniModel set_gguf_parameters and modify_tensors, gguf-py's tensor name map):
  gemma  gemma.* keys with attention.key_length = head_dim (16 != 32 / 4 heads), no rope.freq_base (llama.cpp's
         default 10000 = the checkpoint's), every *norm.weight stored as 1 + w, lm_head dropped (tied), MQA;
  phi3   phi3.* keys incl. rope.dimension_count and rope.scaling.original_context_length, sliding_window 0 for
         none, qkv_proj -> attn_qkv and gate_up_proj -> ffn_up kept fused, untied output.weight.
Neither permutes Q/K (llama.cpp runs both with NEOX RoPE). Tensors are F32 (--outtype f32), so the HF goldens apply
at each manifest's suggested float32 tolerances: attention, logits, and greedy ids by full recompute.
usage: check_gguf_families.py CLI HF_TINY_DIR WORKDIR. Exit 0 only if every check holds."""
import json, os, subprocess, sys
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tools', 'train'))
import safetensors_io  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_writer_np  # noqa: E402

cli, root, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
failures = []

NAMES = {'model.embed_tokens.weight': 'token_embd.weight', 'model.norm.weight': 'output_norm.weight',
         'lm_head.weight': 'output.weight'}
LAYER = {'input_layernorm': 'attn_norm', 'post_attention_layernorm': 'ffn_norm', 'self_attn.q_proj': 'attn_q',
         'self_attn.k_proj': 'attn_k', 'self_attn.v_proj': 'attn_v', 'self_attn.o_proj': 'attn_output',
         'self_attn.qkv_proj': 'attn_qkv', 'mlp.gate_proj': 'ffn_gate', 'mlp.up_proj': 'ffn_up',
         'mlp.down_proj': 'ffn_down', 'mlp.gate_up_proj': 'ffn_up'}


def gguf_name(hf):
    if hf in NAMES:
        return NAMES[hf]
    parts = hf.split('.')  # model.layers.N.<module...>.weight
    return f"blk.{parts[2]}.{LAYER['.'.join(parts[3:-1])]}.{parts[-1]}"


def metadata(arch, cfg):
    h = cfg['num_attention_heads']
    kv = cfg.get('num_key_value_heads', h)
    m = {'general.architecture': arch, 'general.type': 'model', 'general.name': f'hf-tiny-{arch}'}
    a = arch + '.'
    if arch == 'gemma':
        m.update({a + 'context_length': cfg['max_position_embeddings'], a + 'embedding_length': cfg['hidden_size'],
                  a + 'block_count': cfg['num_hidden_layers'], a + 'feed_forward_length': cfg['intermediate_size'],
                  a + 'attention.head_count': h, a + 'attention.head_count_kv': kv,
                  a + 'attention.layer_norm_rms_epsilon': float(cfg['rms_norm_eps']),
                  a + 'attention.key_length': cfg['head_dim'], a + 'attention.value_length': cfg['head_dim']})
    else:
        m.update({a + 'context_length': cfg['max_position_embeddings'],
                  a + 'rope.scaling.original_context_length': cfg['original_max_position_embeddings'],
                  a + 'embedding_length': cfg['hidden_size'], a + 'feed_forward_length': cfg['intermediate_size'],
                  a + 'block_count': cfg['num_hidden_layers'], a + 'attention.head_count': h,
                  a + 'attention.head_count_kv': kv, a + 'attention.layer_norm_rms_epsilon': float(cfg['rms_norm_eps']),
                  a + 'rope.dimension_count': int(cfg.get('partial_rotary_factor', 1.0) * cfg['hidden_size']) // h,
                  a + 'rope.freq_base': float(cfg['rope_theta'])})
    m['general.file_type'] = 0  # ALL_F32
    if arch == 'phi3':
        m[a + 'attention.sliding_window'] = cfg.get('sliding_window') or 0
    return m


def convert(arch):
    d = os.path.join(root, arch)
    cfg = json.load(open(os.path.join(d, 'config.json')))
    weights = safetensors_io.load_file(os.path.join(d, 'model.safetensors'))
    tensors = []
    for hf in sorted(weights):  # gguf-py writes in the checkpoint's order; any order is valid GGUF
        w = weights[hf]
        if arch == 'gemma' and hf == 'lm_head.weight':
            continue
        if arch == 'gemma' and hf.endswith('norm.weight'):
            w = w + 1  # GemmaModel.modify_tensors
        tensors.append((gguf_name(hf), w, 'F32'))
    path = os.path.join(work, f'hf-tiny-{arch}-F32.gguf')
    gguf_writer_np.write(path, metadata(arch, cfg), tensors)
    return path, d


def run(path, ids):
    out = os.path.join(work, 'out')
    r = subprocess.run([cli, 'attention', path, '--tokens', ','.join(map(str, ids)), '--backend', 'cpu', '--out', out],
                       capture_output=True, text=True, timeout=300)
    if r.returncode:
        raise RuntimeError(f"attention failed rc={r.returncode}: {r.stderr.strip()[-300:]}")
    n = len([f for f in os.listdir(out) if f.startswith('attn.L')])
    return np.load(os.path.join(out, 'logits.npy')), [np.load(os.path.join(out, f'attn.L{l}.npy')) for l in range(n)]


for arch in ('gemma', 'phi3'):
    path, d = convert(arch)
    man = json.load(open(os.path.join(d, 'manifest.json')))
    tol = man['suggested_tolerances']['max_abs_diff']
    gold = os.path.join(d, 'golden', 'item0')
    g = lambda n: np.load(os.path.join(gold, n))
    ids = [int(i) for i in g('input_ids.npy')]
    try:
        logits, attn = run(path, ids)
        layers = len([f for f in os.listdir(gold) if f.startswith('attentions.L')])
        if len(attn) != layers:
            raise RuntimeError(f"{len(attn)} attention layers, the goldens have {layers}")
        ea = max(float(np.abs(a - g(f'attentions.L{l:02d}.npy')).max()) for l, a in enumerate(attn))
        el = float(np.abs(logits - g('logits.npy')).max())
        seq, greedy = list(ids), []
        for _ in range(len(g('greedy_ids.npy'))):
            greedy.append(int(np.argmax(run(path, seq)[0][-1])))
            seq.append(greedy[-1])
    except RuntimeError as e:
        failures.append(f"{arch}: {e}")
        continue
    want = [int(i) for i in g('greedy_ids.npy')]
    print(f"{arch} GGUF: attention max abs error {ea:.2e} (tol {tol['attentions']:.0e}), logits {el:.2e} "
          f"(tol {tol['logits']:.0e}), greedy {'equal' if greedy == want else f'{greedy} != {want}'}")
    if ea > tol['attentions'] or el > tol['logits'] or greedy != want:
        failures.append(f"{arch}: off HF's goldens")

for f in failures:
    print('FAIL', f)
print(f"{2 - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
