#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""GGUF gemma, gemma2, phi3 and Mixtral files against HF transformers' goldens. The shared GGUF fixtures hold dense
llama files only, so the public hf-tiny checkpoints are converted here the way llama.cpp's convert_hf_to_gguf.py does
(GemmaModel / Gemma2Model / Phi3MiniModel / MixtralModel set_gguf_parameters and modify_tensors, gguf-py's tensor
name map):
  gemma  gemma.* keys with attention.key_length = head_dim (16 != 32 / 4 heads), no rope.freq_base (llama.cpp's
         default 10000 = the checkpoint's), every *norm.weight stored as 1 + w, lm_head dropped (tied), MQA;
  phi3   phi3.* keys incl. rope.dimension_count and rope.scaling.original_context_length, sliding_window 0 for
         none, qkv_proj -> attn_qkv and gate_up_proj -> ffn_up kept fused, untied output.weight.
  gemma2 as gemma, plus attn_logit_softcapping, final_logit_softcapping and attention.sliding_window; the four norms
         are attn_norm, post_attention_norm, ffn_norm (pre-feed-forward) and post_ffw_norm;
  mixtral architecture llama with expert_count / expert_used_count, Q/K permuted (LlamaModel.permute), the router as
         ffn_gate_inp and the experts' w1 / w3 / w2 merged into ffn_gate_exps / ffn_up_exps / ffn_down_exps
         [experts, out, in]; router logits are compared with HF's too.
Only llama permutes Q/K (llama.cpp runs gemma, gemma2 and phi3 with NEOX RoPE). Tensors are F32 (--outtype f32), so
the HF goldens apply at each manifest's suggested float32 tolerances: attention and logits on the CPU and on Vulkan
(lavapipe in CI), and greedy ids by full recompute.
gemma2's query scale is not in a GGUF file: llama.cpp takes head_dim (n_embd / n_head for the 27B), which is what the
released checkpoints' query_pre_attn_scalar says, but not what the tiny checkpoint's (24, head_dim 16) says. Its GGUF is
therefore checked against this engine's HF path on a copy of the checkpoint whose config says query_pre_attn_scalar =
head_dim (that HF path is itself held to the goldens by fixtures_decoder_families), at the same tolerances.
Usage: check_gguf_families.py CLI HF_TINY_DIR WORK_DIR BACKENDS   (BACKENDS: cpu,vulkan, or cpu for a build without
Vulkan such as the asan preset)
usage: check_gguf_families.py CLI HF_TINY_DIR WORKDIR. Exit 0 only if every check holds."""
import json, os, shutil, subprocess, sys
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tools', 'train'))
import safetensors_io  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_writer_np  # noqa: E402

cli, root, work, backends = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(',')
os.makedirs(work, exist_ok=True)
failures = []

ARCH = {'gemma': 'gemma', 'gemma2': 'gemma2', 'phi3': 'phi3', 'mixtral': 'llama'}
NAMES = {'model.embed_tokens.weight': 'token_embd.weight', 'model.norm.weight': 'output_norm.weight',
         'lm_head.weight': 'output.weight'}
LAYER = {'input_layernorm': 'attn_norm', 'post_attention_layernorm': 'ffn_norm', 'self_attn.q_proj': 'attn_q',
         'self_attn.k_proj': 'attn_k', 'self_attn.v_proj': 'attn_v', 'self_attn.o_proj': 'attn_output',
         'self_attn.qkv_proj': 'attn_qkv', 'mlp.gate_proj': 'ffn_gate', 'mlp.up_proj': 'ffn_up',
         'mlp.down_proj': 'ffn_down', 'mlp.gate_up_proj': 'ffn_up', 'block_sparse_moe.gate': 'ffn_gate_inp'}
GEMMA2_LAYER = {'post_attention_layernorm': 'post_attention_norm', 'pre_feedforward_layernorm': 'ffn_norm',
                'post_feedforward_layernorm': 'post_ffw_norm'}
EXPERTS = {'w1': 'ffn_gate_exps', 'w3': 'ffn_up_exps', 'w2': 'ffn_down_exps'}


def gguf_name(hf, arch):
    if hf in NAMES:
        return NAMES[hf]
    parts = hf.split('.')  # model.layers.N.<module...>.weight
    module = '.'.join(parts[3:-1])
    return f"blk.{parts[2]}.{(GEMMA2_LAYER if arch == 'gemma2' else {}).get(module, LAYER.get(module))}.{parts[-1]}"


def permute(w, n_head, n_head_kv):
    """convert_hf_to_gguf.py LlamaModel.permute: HF's rotate-half rows to llama.cpp's interleaved pairs."""
    if n_head_kv is not None and n_head != n_head_kv:
        n_head = n_head_kv
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def metadata(fixture, cfg):
    arch = ARCH[fixture]
    h = cfg['num_attention_heads']
    kv = cfg.get('num_key_value_heads', h)
    a = arch + '.'
    m = {'general.architecture': arch, 'general.type': 'model', 'general.name': f'hf-tiny-{fixture}',
         a + 'context_length': cfg['max_position_embeddings'], a + 'embedding_length': cfg['hidden_size'],
         a + 'block_count': cfg['num_hidden_layers'], a + 'feed_forward_length': cfg['intermediate_size'],
         a + 'attention.head_count': h, a + 'attention.head_count_kv': kv,
         a + 'attention.layer_norm_rms_epsilon': float(cfg['rms_norm_eps'])}
    if fixture in ('gemma', 'gemma2'):
        m.update({a + 'attention.key_length': cfg['head_dim'], a + 'attention.value_length': cfg['head_dim']})
    if fixture == 'gemma2':
        m.update({a + 'attn_logit_softcapping': float(cfg['attn_logit_softcapping']),
                  a + 'final_logit_softcapping': float(cfg['final_logit_softcapping']),
                  a + 'attention.sliding_window': cfg['sliding_window']})
    if fixture == 'phi3':
        m.update({a + 'rope.scaling.original_context_length': cfg['original_max_position_embeddings'],
                  a + 'rope.dimension_count': int(cfg.get('partial_rotary_factor', 1.0) * cfg['hidden_size']) // h,
                  a + 'rope.freq_base': float(cfg['rope_theta'])})
    if fixture == 'mixtral':
        m.update({a + 'rope.freq_base': float(cfg['rope_theta']), a + 'expert_count': cfg['num_local_experts'],
                  a + 'expert_used_count': cfg['num_experts_per_tok']})
    m['general.file_type'] = 0  # ALL_F32
    if fixture == 'phi3':
        m[a + 'attention.sliding_window'] = cfg.get('sliding_window') or 0
    return m


def convert(fixture):
    d = os.path.join(root, fixture)
    cfg = json.load(open(os.path.join(d, 'config.json')))
    weights = safetensors_io.load_file(os.path.join(d, 'model.safetensors'))
    h, kv = cfg['num_attention_heads'], cfg.get('num_key_value_heads', cfg['num_attention_heads'])
    tensors, experts = [], {}
    for hf in sorted(weights):  # gguf-py writes in the checkpoint's order; any order is valid GGUF
        w = weights[hf]
        if fixture.startswith('gemma') and hf == 'lm_head.weight':
            continue
        if fixture.startswith('gemma') and hf.endswith('norm.weight'):
            w = w + 1  # GemmaModel / Gemma2Model.modify_tensors
        if fixture == 'mixtral':
            if hf.endswith('q_proj.weight'):
                w = permute(w, h, h)
            elif hf.endswith('k_proj.weight'):
                w = permute(w, h, kv)
            parts = hf.split('.')  # model.layers.N.block_sparse_moe.experts.E.wK.weight
            if 'experts' in parts:
                experts.setdefault((int(parts[2]), parts[6]), {})[int(parts[5])] = w
                continue
        tensors.append((gguf_name(hf, fixture), w, 'F32'))
    for (layer, wk), by_expert in sorted(experts.items()):  # MixtralModel.modify_tensors stacks them
        tensors.append((f'blk.{layer}.{EXPERTS[wk]}.weight', np.stack([by_expert[e] for e in sorted(by_expert)]),
                        'F32'))
    path = os.path.join(work, f'hf-tiny-{fixture}-F32.gguf')
    gguf_writer_np.write(path, metadata(fixture, cfg), tensors)
    return path, d


def llama_cpp_scale_copy(d):
    """The gemma2 checkpoint with the query scale llama.cpp gives its GGUF (query_pre_attn_scalar = head_dim)."""
    copy = os.path.join(work, 'gemma2-llama-cpp-scale')
    os.makedirs(copy, exist_ok=True)
    cfg = json.load(open(os.path.join(d, 'config.json')))
    cfg['query_pre_attn_scalar'] = cfg['head_dim']
    json.dump(cfg, open(os.path.join(copy, 'config.json'), 'w'))
    weights = os.path.join(copy, 'model.safetensors')
    if os.path.lexists(weights):
        os.remove(weights)
    shutil.copyfile(os.path.join(d, 'model.safetensors'), weights)  # a link out of the folder is refused
    return copy


def run(path, ids, backend='cpu'):
    out = os.path.join(work, 'out')
    r = subprocess.run([cli, 'attention', path, '--tokens', ','.join(map(str, ids)), '--backend', backend, '--out',
                        out], capture_output=True, text=True, timeout=300)
    if r.returncode:
        raise RuntimeError(f"attention failed rc={r.returncode}: {r.stderr.strip()[-300:]}")
    n = len([f for f in os.listdir(out) if f.startswith('attn.L')])
    routers = [np.load(os.path.join(out, f'router.L{l}.npy')) for l in range(n)
               if os.path.exists(os.path.join(out, f'router.L{l}.npy'))]
    return (np.load(os.path.join(out, 'logits.npy')), [np.load(os.path.join(out, f'attn.L{l}.npy')) for l in range(n)],
            routers)


def greedy(path, ids, steps):
    seq, out = list(ids), []
    for _ in range(steps):
        out.append(int(np.argmax(run(path, seq)[0][-1])))
        seq.append(out[-1])
    return out


FIXTURES = ('gemma', 'gemma2', 'phi3', 'mixtral')
for fixture in FIXTURES:
    path, d = convert(fixture)
    man = json.load(open(os.path.join(d, 'manifest.json')))
    tol = man['suggested_tolerances']['max_abs_diff']
    gold = os.path.join(d, 'golden', 'item0')
    g = lambda n: np.load(os.path.join(gold, n))
    ids = [int(i) for i in g('input_ids.npy')]
    layers = len([f for f in os.listdir(gold) if f.startswith('attentions.L')])
    try:
        if fixture == 'gemma2':  # against the HF path at llama.cpp's query scale (see the top)
            ref = llama_cpp_scale_copy(d)
            want_logits, want_attn, _ = run(ref, ids)
            want_greedy = greedy(ref, ids, len(g('greedy_ids.npy')))
            against = "the HF path at llama.cpp's query scale"
        else:
            want_logits, want_attn = g('logits.npy'), [g(f'attentions.L{l:02d}.npy') for l in range(layers)]
            want_greedy = [int(i) for i in g('greedy_ids.npy')]
            against = "HF's goldens"
        got_greedy = greedy(path, ids, len(want_greedy))
        errors = {}  # backend -> (attention, logits, router logits) max abs errors
        for backend in backends:  # vulkan: the packed GGUF rows widened on upload (lavapipe in CI)
            logits, attn, routers = run(path, ids, backend)
            if len(attn) != layers:
                raise RuntimeError(f"{backend}: {len(attn)} attention layers, the goldens have {layers}")
            er = 0.0
            if fixture == 'mixtral':
                if len(routers) != layers:
                    raise RuntimeError(f"{backend}: {len(routers)} router logit files for {layers} layers")
                er = max(float(np.abs(r - g(f'router_logits.L{l:02d}.npy')).max()) for l, r in enumerate(routers))
            errors[backend] = (max(float(np.abs(a - w).max()) for a, w in zip(attn, want_attn)),
                               float(np.abs(logits - want_logits).max()), er)
    except RuntimeError as e:
        failures.append(f"{fixture}: {e}")
        continue
    for backend, (ea, el, er) in errors.items():
        router_note = f", router logits {er:.2e} (tol {tol['router_logits']:.0e})" if fixture == 'mixtral' else ''
        print(f"{fixture} GGUF on {backend} vs {against}: attention max abs error {ea:.2e} (tol "
              f"{tol['attentions']:.0e}), logits {el:.2e} (tol {tol['logits']:.0e}){router_note}")
        if ea > tol['attentions'] or el > tol['logits'] or (fixture == 'mixtral' and er > tol['router_logits']):
            failures.append(f"{fixture} on {backend}: off {against}")
    print(f"{fixture} GGUF greedy ids {'equal' if got_greedy == want_greedy else f'{got_greedy} != {want_greedy}'}")
    if got_greedy != want_greedy:
        failures.append(f"{fixture}: greedy ids off {against}")

for f in failures:
    print('FAIL', f)
print(f"{len(FIXTURES)} models, {len(failures)} failures")
sys.exit(1 if failures else 0)
