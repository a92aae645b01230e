#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""OPT with do_layer_norm_before=false (post-LN, as opt-350m) against a float64 NumPy forward written from HF
transformers' modeling_opt.py (OPTDecoder / OPTDecoderLayer / OPTAttention, eager). No HF golden exists for the
post-LN wiring, so two models are built from the public hf-tiny/opt fixture:
  weights   the fixture's own weights, post-LN (its decoder.final_layer_norm dropped: HF builds none without
            do_layer_norm_before);
  proj      opt-350m's shape: word_embed_proj_dim 16 != hidden 32 (project_in / project_out), random weights.
Checks per model: `attention` against the reference (attention within 1e-5, logits within 1e-4: the fixture manifest's
suggested float32 tolerances), greedy ids by full recompute (8 steps, top1-top2 margins printed), and `generate`
(the KV-cache path) printing the text of those ids.
usage: check_opt_post_ln.py CLI FIXTURE_DIR WORKDIR. Exit 0 only if every check holds."""
import json, os, shutil, subprocess, sys
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tools', 'train'))
import safetensors_io  # noqa: E402

cli, fixture, work = sys.argv[1:4]
TOL_ATTENTION, TOL_LOGITS, STEPS = 1e-5, 1e-4, 8
PRE = 'model.decoder.'
failures = []


def layer_norm(x, w, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def forward(cfg, t, ids):
    """(logits [T, V], [attention [H, T, T] per layer]) in float64, following OPTForCausalLM.forward."""
    g = lambda n: t[PRE + n].astype(np.float64)
    T, H = len(ids), cfg['num_attention_heads']
    D = cfg['hidden_size']
    hd = D // H
    pre_ln = cfg['do_layer_norm_before']
    x = g('embed_tokens.weight')[ids]
    if PRE + 'project_in.weight' in t:
        x = x @ g('project_in.weight').T
    x = x + g('embed_positions.weight')[np.arange(T) + 2]  # OPTLearnedPositionalEmbedding: cumsum(mask) - 1 + 2
    causal = np.triu(np.full((T, T), -np.inf), 1)
    attentions = []
    for l in range(cfg['num_hidden_layers']):
        p = f'layers.{l}.'
        lin = lambda h, n: h @ g(p + n + '.weight').T + g(p + n + '.bias')
        norm = lambda h, n: layer_norm(h, g(p + n + '.weight'), g(p + n + '.bias'))
        residual = x
        h = norm(x, 'self_attn_layer_norm') if pre_ln else x
        q = (lin(h, 'self_attn.q_proj') * hd ** -0.5).reshape(T, H, hd).transpose(1, 0, 2)
        k = lin(h, 'self_attn.k_proj').reshape(T, H, hd).transpose(1, 0, 2)
        v = lin(h, 'self_attn.v_proj').reshape(T, H, hd).transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) + causal
        s = np.exp(s - s.max(-1, keepdims=True))
        a = s / s.sum(-1, keepdims=True)
        attentions.append(a)
        h = lin((a @ v).transpose(1, 0, 2).reshape(T, D), 'self_attn.out_proj')
        x = residual + h
        if not pre_ln:
            x = norm(x, 'self_attn_layer_norm')
        residual = x
        h = norm(x, 'final_layer_norm') if pre_ln else x
        h = lin(np.maximum(lin(h, 'fc1'), 0), 'fc2')
        x = residual + h
        if not pre_ln:
            x = norm(x, 'final_layer_norm')
    if pre_ln:
        x = layer_norm(x, g('final_layer_norm.weight'), g('final_layer_norm.bias'))
    if PRE + 'project_out.weight' in t:
        x = x @ g('project_out.weight').T
    return x @ g('embed_tokens.weight').T, attentions  # lm_head tied to embed_tokens


def build(name, cfg, tensors):
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    for f in ('vocab.json', 'merges.txt', 'tokenizer_config.json', 'special_tokens_map.json'):
        shutil.copy(os.path.join(fixture, f), d)
    with open(os.path.join(d, 'config.json'), 'w') as f:
        json.dump(cfg, f, indent=1)
    safetensors_io.save_file(tensors, os.path.join(d, 'model.safetensors'))
    return d


def cli_forward(d, ids):
    out = os.path.join(d, 'out')
    shutil.rmtree(out, ignore_errors=True)
    r = subprocess.run([cli, 'attention', d, '--tokens', ','.join(map(str, ids)), '--backend', 'cpu', '--out', out],
                       capture_output=True, text=True, timeout=300)
    if r.returncode:
        sys.exit(f"{d}: attention failed rc={r.returncode}: {r.stderr.strip()[-300:]}")
    n = len([f for f in os.listdir(out) if f.startswith('attn.L')])
    return np.load(os.path.join(out, 'logits.npy')), [np.load(os.path.join(out, f'attn.L{l}.npy')) for l in range(n)]


def byte_decoder():
    """GPT-2's bytes_to_unicode table, inverted: the byte each vocab character stands for."""
    bs = list(range(ord('!'), ord('~') + 1)) + list(range(ord('¡'), ord('¬') + 1)) + list(range(ord('®'), ord('ÿ') + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def check(name, cfg, tensors, ids):
    d = build(name, cfg, tensors)
    ref_logits, ref_attn = forward(cfg, tensors, ids)
    logits, attn = cli_forward(d, ids)
    if len(attn) != len(ref_attn) or logits.shape != ref_logits.shape:
        failures.append(f"{name}: {len(attn)} layers / logits {logits.shape}, expected {len(ref_attn)} / {ref_logits.shape}")
        return
    ea = max(float(np.abs(a - r).max()) for a, r in zip(attn, ref_attn))
    el = float(np.abs(logits - ref_logits).max())
    print(f"{name}: attention max abs error {ea:.2e} (tol {TOL_ATTENTION:.0e}), logits {el:.2e} (tol {TOL_LOGITS:.0e})")
    if ea > TOL_ATTENTION or el > TOL_LOGITS:
        failures.append(f"{name}: forward off the reference")
    seq, greedy, margins = list(ids), [], []
    for _ in range(STEPS):
        ref_last = forward(cfg, tensors, seq)[0][-1]
        top = np.sort(ref_last)[-2:]
        margins.append(top[1] - top[0])
        greedy.append(int(np.argmax(ref_last)))
        got = int(np.argmax(cli_forward(d, seq)[0][-1]))
        if got != greedy[-1]:
            failures.append(f"{name}: greedy step {len(greedy)}: engine {got}, reference {greedy[-1]}")
        seq.append(greedy[-1])
    print(f"{name}: greedy {greedy}, smallest top1-top2 margin {min(margins):.3f}")
    vocab = {i: s for s, i in json.load(open(os.path.join(d, 'vocab.json'))).items()}
    bd = byte_decoder()
    special = cfg['bos_token_id']
    text = bytes(bd[c] for i in seq if i != special for c in vocab[i]).decode('utf-8', errors='replace')
    r = subprocess.run([cli, 'generate', d, '--tokens', ','.join(map(str, ids)), '--temperature', '0',
                        '--max-new-tokens', str(STEPS), '--backend', 'cpu'], capture_output=True, timeout=300)
    printed = r.stdout.decode('utf-8', errors='replace').rstrip('\n')
    if r.returncode or printed != text:
        failures.append(f"{name}: generate printed {printed!r}, the reference's greedy text is {text!r}")


cfg = json.load(open(os.path.join(fixture, 'config.json')))
weights = safetensors_io.load_file(os.path.join(fixture, 'model.safetensors'))
ids = [int(i) for i in np.load(os.path.join(fixture, 'golden', 'item0', 'input_ids.npy'))]

# The pre-LN fixture itself first: the reference reproduces HF's goldens, so it is HF's semantics.
gold = os.path.join(fixture, 'golden', 'item0')
ref_logits, ref_attn = forward(cfg, weights, ids)
ref_err = max([float(np.abs(ref_logits - np.load(os.path.join(gold, 'logits.npy'))).max())]
              + [float(np.abs(a - np.load(os.path.join(gold, f'attentions.L{l:02d}.npy'))).max())
                 for l, a in enumerate(ref_attn)])
print(f"reference vs HF goldens (pre-LN fixture): max abs {ref_err:.2e}")
if ref_err > TOL_LOGITS:
    failures.append(f"the NumPy reference is {ref_err:.2e} off HF's pre-LN goldens")

post = dict(cfg, do_layer_norm_before=False)
check('weights', post, {k: v for k, v in weights.items() if not k.startswith(PRE + 'final_layer_norm')}, ids)

rng = np.random.default_rng(350)
E, D, F, V, L, P = 16, cfg['hidden_size'], cfg['ffn_dim'], cfg['vocab_size'], 2, cfg['max_position_embeddings'] + 2
proj = {PRE + 'embed_tokens.weight': rng.normal(0, 0.25, (V, E)), PRE + 'embed_positions.weight': rng.normal(0, 0.25, (P, D)),
        PRE + 'project_in.weight': rng.normal(0, 0.25, (D, E)), PRE + 'project_out.weight': rng.normal(0, 0.25, (E, D))}
for l in range(L):
    p = f'{PRE}layers.{l}.'
    for n, shape in (('self_attn.q_proj', (D, D)), ('self_attn.k_proj', (D, D)), ('self_attn.v_proj', (D, D)),
                     ('self_attn.out_proj', (D, D)), ('fc1', (F, D)), ('fc2', (D, F))):
        proj[p + n + '.weight'] = rng.normal(0, 0.25, shape)
        proj[p + n + '.bias'] = rng.normal(0, 0.1, shape[0])
    for n in ('self_attn_layer_norm', 'final_layer_norm'):
        proj[p + n + '.weight'] = 1 + rng.normal(0, 0.1, D)
        proj[p + n + '.bias'] = rng.normal(0, 0.1, D)
proj = {k: v.astype(np.float32) for k, v in proj.items()}
check('proj', dict(post, word_embed_proj_dim=E, num_hidden_layers=L), proj, ids)

for f in failures:
    print('FAIL', f)
print(f"{2 - len({f.split(':')[0] for f in failures})} passed, {len({f.split(':')[0] for f in failures})} failed")
sys.exit(1 if failures else 0)
