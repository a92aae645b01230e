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
  llama3-rope / llama-rope-linear  architecture llama, Q/K permuted, plus LlamaModel's RoPE scaling: Llama 3.1's bands
         as rope_freqs.weight (generate_extra_tensors, with the rope_scaling's original_max_position_embeddings),
         linear as rope.scaling.type "linear" and rope.scaling.factor (set_gguf_parameters).
  mistral architecture llama (LlamaModel is registered for MistralForCausalLM), Q/K permuted, GQA 4/2; LlamaModel
         writes no sliding window, so the file runs without one, as in llama.cpp: checked on the first
         sliding_window (6) tokens, whose attention and logits the window does not change (greedy ids not compared).
  phi3 longrope: as phi3, plus what Phi3MiniModel.generate_extra_tensors writes for a long-context config: the
         long_factor / short_factor lists as F32 tensors rope_factors_long.weight / rope_factors_short.weight
         [rope_dims / 2], and rope.scaling.attn_factor = sqrt(1 + ln(s) / ln(orig)) for s = context_length / orig
         (add_rope_scaling_attn_factors). No HF golden has longrope, so the tiny phi3 checkpoint with made-up factors
         and original_max_position_embeddings 8 < context_length 64 is checked against phi3_reference.py, a float64
         NumPy port of transformers' Phi3 (itself held to the unscaled goldens first), on 12 tokens (long factors) and
         6 tokens (short factors); the HF path on the same checkpoint with that rope_scaling in its config too.
  llama yarn: the tiny llama checkpoint with three YaRN rope_scaling variants against yarn_reference.py, a float64
         port of transformers' _compute_yarn_parameters (held to the unscaled llama goldens first), as HF folders and,
         for the two that GGUF can state, as GGUF files with convert_hf_to_gguf.py's rope.scaling.* yarn keys.
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
import json, math, os, shutil, subprocess, sys
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tools', 'train'))
import safetensors_io  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_writer_np  # noqa: E402
import phi3_reference  # noqa: E402
import yarn_reference  # noqa: E402

cli, root, work, backends = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(',')
os.makedirs(work, exist_ok=True)
failures = []

ARCH = {'gemma': 'gemma', 'gemma2': 'gemma2', 'phi3': 'phi3', 'mixtral': 'llama', 'mistral': 'llama', 'llama3-rope': 'llama',
        'llama-rope-linear': 'llama', 'llama': 'llama'}
LLAMA_ARCH = ('mixtral', 'mistral', 'llama3-rope', 'llama-rope-linear', 'llama')  # LlamaModel: Q/K permuted
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


def metadata(fixture, cfg, longrope=None):
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
    if fixture in LLAMA_ARCH:
        m[a + 'rope.freq_base'] = float(cfg['rope_theta'])
    scaling = cfg.get('rope_scaling') or {}
    if fixture == 'llama-rope-linear':  # LlamaModel.set_gguf_parameters
        m.update({a + 'rope.scaling.type': 'linear', a + 'rope.scaling.factor': float(scaling['factor'])})
    if fixture == 'mixtral':
        m.update({a + 'expert_count': cfg['num_local_experts'], a + 'expert_used_count': cfg['num_experts_per_tok']})
    m['general.file_type'] = 0  # ALL_F32
    if fixture == 'phi3':
        m[a + 'attention.sliding_window'] = cfg.get('sliding_window') or 0
    if scaling.get('rope_type', scaling.get('type')) == 'yarn':  # TextModel.set_gguf_parameters
        m.update({a + 'rope.scaling.type': 'yarn', a + 'rope.scaling.factor': float(scaling['factor']),
                  a + 'rope.scaling.original_context_length': scaling['original_max_position_embeddings']})
        for hf, key in (('attention_factor', 'yarn_attn_factor'), ('beta_fast', 'yarn_beta_fast'),
                        ('beta_slow', 'yarn_beta_slow')):
            if scaling.get(hf) is not None:
                m[a + 'rope.scaling.' + key] = float(scaling[hf])
    if longrope:  # Phi3MiniModel.set_gguf_parameters / generate_extra_tensors
        orig = longrope['original_max_position_embeddings']
        scale = cfg['max_position_embeddings'] / orig
        m[a + 'rope.scaling.original_context_length'] = orig
        m[a + 'rope.scaling.attn_factor'] = math.sqrt(1 + math.log(scale) / math.log(orig)) if scale > 1 else 1.0
    return m


def llama3_rope_freqs(cfg):
    """LlamaModel.generate_extra_tensors for rope_type llama3: one divisor of inv_freq per rotary pair."""
    rp, dim = cfg['rope_scaling'], cfg['hidden_size'] // cfg['num_attention_heads']
    freqs = 1.0 / (cfg['rope_theta'] ** (np.arange(0, dim, 2, dtype=np.float32) / dim))
    factor, low, high = rp['factor'], rp['low_freq_factor'], rp['high_freq_factor']
    old = rp['original_max_position_embeddings']
    out = []
    for freq in freqs:
        wavelen = 2 * math.pi / freq
        if wavelen < old / high:
            out.append(1.0)
        elif wavelen > old / low:
            out.append(factor)
        else:
            smooth = (old / wavelen - low) / (high - low)
            out.append(1 / ((1 - smooth) / factor + smooth))
    return np.array(out, np.float32)


def convert(fixture, longrope=None, changes=None, name=None, extra=None):
    """changes: config.json entries that differ from the checkpoint's (yarn's rope_scaling), written as `name`;
    extra: metadata keys to add."""
    d = os.path.join(root, fixture)
    cfg = json.load(open(os.path.join(d, 'config.json')))
    cfg.update(changes or {})
    weights = safetensors_io.load_file(os.path.join(d, 'model.safetensors'))
    h, kv = cfg['num_attention_heads'], cfg.get('num_key_value_heads', cfg['num_attention_heads'])
    tensors, experts = [], {}
    for hf in sorted(weights):  # gguf-py writes in the checkpoint's order; any order is valid GGUF
        w = weights[hf]
        if fixture.startswith('gemma') and hf == 'lm_head.weight':
            continue
        if fixture.startswith('gemma') and hf.endswith('norm.weight'):
            w = w + 1  # GemmaModel / Gemma2Model.modify_tensors
        if fixture in LLAMA_ARCH:
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
    if fixture == 'llama3-rope':
        tensors.append(('rope_freqs.weight', llama3_rope_freqs(cfg), 'F32'))
    if longrope:
        tensors += [(f'rope_factors_{kind}.weight', np.array(longrope[f'{kind}_factor'], np.float32), 'F32')
                    for kind in ('long', 'short')]
    path = os.path.join(work, f"hf-tiny-{name or fixture}{'-longrope' if longrope else ''}-F32.gguf")
    gguf_writer_np.write(path, {**metadata(fixture, cfg, longrope), **(extra or {})}, tensors)
    return path, d


def config_copy(d, name, **changes):
    """A copy of the checkpoint in `d` whose config.json has `changes`."""
    copy = os.path.join(work, name)
    os.makedirs(copy, exist_ok=True)
    cfg = json.load(open(os.path.join(d, 'config.json')))
    cfg.update(changes)
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


FIXTURES = ('gemma', 'gemma2', 'phi3', 'mixtral', 'mistral', 'llama3-rope', 'llama-rope-linear')
for fixture in FIXTURES:
    path, d = convert(fixture)
    man = json.load(open(os.path.join(d, 'manifest.json')))
    tol = man['suggested_tolerances']['max_abs_diff']
    gold = os.path.join(d, 'golden', 'item0')
    g = lambda n: np.load(os.path.join(gold, n))
    ids = [int(i) for i in g('input_ids.npy')]
    layers = len([f for f in os.listdir(gold) if f.startswith('attentions.L')])
    cfg = json.load(open(os.path.join(d, 'config.json')))
    try:
        if fixture == 'gemma2':  # against the HF path at llama.cpp's query scale (see the top)
            ref = config_copy(d, 'gemma2-llama-cpp-scale', query_pre_attn_scalar=cfg['head_dim'])
            want_logits, want_attn, _ = run(ref, ids)
            want_greedy = greedy(ref, ids, len(g('greedy_ids.npy')))
            against = "the HF path at llama.cpp's query scale"
        else:
            want_logits, want_attn = g('logits.npy'), [g(f'attentions.L{l:02d}.npy') for l in range(layers)]
            want_greedy = [int(i) for i in g('greedy_ids.npy')]
            against = "HF's goldens"
        if fixture == 'mistral':  # the first sliding_window tokens, which the window does not cut (see the top)
            n = cfg['sliding_window']
            ids, want_logits, want_attn = ids[:n], want_logits[:n], [a[:, :n, :n] for a in want_attn]
            want_greedy, against = [], f"HF's goldens over the first {n} tokens"
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
    if want_greedy:
        print(f"{fixture} GGUF greedy ids {'equal' if got_greedy == want_greedy else f'{got_greedy} != {want_greedy}'}")
    if got_greedy != want_greedy:
        failures.append(f"{fixture}: greedy ids off {against}")

def check_reference(what, models, prompt, want_logits, want_attn, tol, against):
    """Each (label, model, backends) of `models` run on `prompt` against a float64 reference forward."""
    for label, model, model_backends in models:
        for backend in model_backends:
            try:
                got_logits, got_attn, _ = run(model, prompt, backend)
            except RuntimeError as e:
                failures.append(f"{what} {label}: {e}")
                continue
            ea = max(float(np.abs(a - w).max()) for a, w in zip(got_attn, want_attn))
            el = float(np.abs(got_logits - want_logits).max())
            print(f"{what} {label} on {backend} vs {against}: attention {ea:.2e} (tol {tol['attentions']:.0e}), "
                  f"logits {el:.2e} (tol {tol['logits']:.0e})")
            if len(got_attn) != len(want_attn) or ea > tol['attentions'] or el > tol['logits']:
                failures.append(f"{what} {label} on {backend}: off {against}")


# phi3 longrope (see the top): made-up factors, one per rotary pair of head_dim 8.
LONGROPE = {'short_factor': [1.0, 1.25, 1.6, 2.0], 'long_factor': [1.5, 3.0, 6.0, 12.0],
            'original_max_position_embeddings': 8}
path, d = convert('phi3', LONGROPE)
tol = json.load(open(os.path.join(d, 'manifest.json')))['suggested_tolerances']['max_abs_diff']
cfg = json.load(open(os.path.join(d, 'config.json')))
weights = safetensors_io.load_file(os.path.join(d, 'model.safetensors'))
gold = os.path.join(d, 'golden', 'item0')
ids = [int(i) for i in np.load(os.path.join(gold, 'input_ids.npy'))]
logits, attn = phi3_reference.forward(weights, cfg, ids)  # the port against HF's unscaled goldens
ea = max(float(np.abs(a - np.load(os.path.join(gold, f'attentions.L{l:02d}.npy'))).max()) for l, a in enumerate(attn))
el = float(np.abs(logits - np.load(os.path.join(gold, 'logits.npy'))).max())
print(f"phi3_reference.py vs HF's unscaled goldens: attention {ea:.2e}, logits {el:.2e}")
if ea > tol['attentions'] or el > tol['logits']:
    failures.append("phi3_reference.py: off HF's goldens")
hf_copy = config_copy(d, 'phi3-longrope', original_max_position_embeddings=8, rope_scaling={
    'type': 'longrope', 'short_factor': LONGROPE['short_factor'], 'long_factor': LONGROPE['long_factor']})
for prompt, factors in ((ids, 'long'), (ids[:6], 'short')):
    want_logits, want_attn = phi3_reference.forward(weights, cfg, prompt, LONGROPE)
    check_reference(f"phi3 longrope, {len(prompt)} tokens ({factors} factors)",
                    (('GGUF', path, backends), ('HF path', hf_copy, ['cpu'])), prompt, want_logits, want_attn, tol,
                    'phi3_reference.py')

# YaRN (see yarn_reference.py): no HF golden has it, so the tiny llama checkpoint with these rope_scaling entries is
# checked against the float64 port of _compute_yarn_parameters, as an HF folder (config.json edited) and, where GGUF
# can say it (llama.cpp always truncates and has no mscale keys), converted as convert_hf_to_gguf.py writes yarn. An
# original length of 1000 puts the ramp's bounds inside the 4 rotary pairs of head_dim 8, so that pairs are kept,
# blended and interpolated.
YARN = {
    'yarn-defaults': ({'rope_type': 'yarn', 'factor': 4.0, 'original_max_position_embeddings': 1000}, True),
    'yarn-betas-attention': ({'rope_type': 'yarn', 'factor': 8.0, 'original_max_position_embeddings': 1000,
                              'beta_fast': 16.0, 'beta_slow': 2.0, 'attention_factor': 1.25}, True),
    'yarn-untruncated-mscale': ({'type': 'yarn', 'factor': 6.0, 'original_max_position_embeddings': 1000,
                                 'truncate': False, 'mscale': 1.0, 'mscale_all_dim': 0.5}, False),
}
d = os.path.join(root, 'llama')
tol = json.load(open(os.path.join(d, 'manifest.json')))['suggested_tolerances']['max_abs_diff']
cfg = json.load(open(os.path.join(d, 'config.json')))
weights = safetensors_io.load_file(os.path.join(d, 'model.safetensors'))
gold = os.path.join(d, 'golden', 'item0')
ids = [int(i) for i in np.load(os.path.join(gold, 'input_ids.npy'))]
logits, attn = yarn_reference.llama_forward(weights, cfg, ids)  # the port against HF's unscaled llama goldens
ea = max(float(np.abs(a - np.load(os.path.join(gold, f'attentions.L{l:02d}.npy'))).max()) for l, a in enumerate(attn))
el = float(np.abs(logits - np.load(os.path.join(gold, 'logits.npy'))).max())
print(f"yarn_reference.py (plain RoPE) vs HF's llama goldens: attention {ea:.2e}, logits {el:.2e}")
if ea > tol['attentions'] or el > tol['logits']:
    failures.append("yarn_reference.py: off HF's llama goldens")
for name, (scaling, as_gguf) in YARN.items():
    changes = {'max_position_embeddings': int(scaling['factor'] * scaling['original_max_position_embeddings']),
               'rope_scaling': scaling}
    want_logits, want_attn = yarn_reference.llama_forward(weights, dict(cfg, **changes), ids, scaling)
    _, plain_attn = yarn_reference.llama_forward(weights, cfg, ids)
    moved = max(float(np.abs(a - w).max()) for a, w in zip(plain_attn, want_attn))
    if moved <= 10 * tol['attentions']:
        failures.append(f"{name}: yarn moves the attention only {moved:.1e}; the check would not see it ignored")
    models = [('HF path', config_copy(d, name, **changes), ['cpu'])]
    if as_gguf:
        models.append(('GGUF', convert('llama', changes=changes, name=name)[0], backends))
    print(f"{name}: yarn moves the attention {moved:.2e} from plain RoPE")
    check_reference(name, models, ids, want_logits, want_attn, tol, 'yarn_reference.py')

# What GGUF can say about YaRN beyond transformers is refused by name: an extrapolation factor other than 1 and
# DeepSeek's yarn_log_multiplier.
for key, value in (('yarn_ext_factor', 0.5), ('yarn_log_multiplier', 0.1)):
    name = f'yarn-{key}'
    changes = {'max_position_embeddings': 4000, 'rope_scaling': YARN['yarn-defaults'][0]}
    bad = convert('llama', changes=changes, name=name, extra={f'llama.rope.scaling.{key}': value})[0]
    r = subprocess.run([cli, 'info', bad], capture_output=True, text=True, timeout=60)
    said = (r.stdout + r.stderr).strip()
    print(f"{name}: rc {r.returncode}, {said[-160:]}")
    if r.returncode == 0 or key not in said or bad not in said:
        failures.append(f"{name}: not refused naming the file and the key")

for f in failures:
    print('FAIL', f)
print(f"{len(FIXTURES) + 1 + len(YARN)} models, {len(failures)} failures")
sys.exit(1 if failures else 0)
