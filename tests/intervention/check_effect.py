#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""`attnscope-cli effect` and `ablate --mask-keys` on the demo decoder against NumPy: the attention rows equal those
`attention` writes, each leave-one-out effect equals the log-probability drop computed here from the logits that
`ablate --mask-keys J` writes, the rank correlations equal a NumPy Spearman, a key hidden from one head leaves that
head's rows renormalised, and the key that matters most is the induction target (the token after the earlier copy).
usage: check_effect.py CLI DEMO_MODEL WORKDIR. Exit 0 only if every check holds."""
import json, os, subprocess, sys
import numpy as np

cli, demo, work = sys.argv[1:4]
PROMPT = "Sam said the magic words: moon tree fish rain. Then he said again: moon tree fish"
# The same float32 probabilities on both sides (attention derived from the stored queries and keys or captured:
# a few float32 epsilons of 1).
PROB_TOL = 1e-6
# Effects are differences of float64 log-softmaxes of float32 logits; `effect` computes only the query's row of the
# LM head, `ablate` all rows, so the logits differ by BLAS rounding (~1e-6 relative of logits of size ~10).
EFFECT_TOL = 1e-4
failures = []


def run(*args):
    r = subprocess.run([cli, *args, '--backend', 'cpu'], capture_output=True, text=True, timeout=300)
    if r.returncode:
        sys.exit(f"{' '.join(args[:2])} failed rc={r.returncode}: {r.stderr.strip()[-300:]}")
    return r.stdout


def check(ok, what):
    if not ok:
        failures.append(what)


def log_softmax(row):
    row = row.astype(np.float64)
    m = row.max()
    return row - m - np.log(np.exp(row - m).sum())


def spearman(a, b):
    """Pearson correlation of average ranks (ties share their mean rank), NaN for a constant series."""
    def ranks(x):
        x = np.asarray(x, dtype=np.float64)
        values, inverse = np.unique(x, return_inverse=True)
        order = np.argsort(x, kind='stable')
        r = np.empty(len(x))
        r[order] = np.arange(1, len(x) + 1)
        means = np.array([r[inverse == i].mean() for i in range(len(values))])
        return means[inverse]
    ra, rb = ranks(a) - (len(a) + 1) / 2, ranks(b) - (len(b) + 1) / 2
    den = np.sqrt((ra * ra).sum() * (rb * rb).sum())
    return np.nan if den == 0 else (ra * rb).sum() / den


eff = os.path.join(work, 'effect')
run('effect', demo, '--prompt', PROMPT, '--per-head', '--out', eff)
report = json.load(open(os.path.join(eff, 'effect.json')))
tokens = [k['token'] for k in report['keys']]
q = report['query']
ids = ','.join(str(t) for t in tokens)
attention = np.load(os.path.join(eff, 'attention.npy'))
effect = np.load(os.path.join(eff, 'effect.npy'))
L, H, K = attention.shape
check(q == len(tokens) - 1 and K == q + 1, f"query {q} and {K} keys for {len(tokens)} tokens")

plain = os.path.join(work, 'attention')
run('attention', demo, '--tokens', ids, '--out', plain)
clean_attn = [np.load(os.path.join(plain, f'attn.L{l}.npy')) for l in range(L)]
for l in range(L):
    err = np.abs(attention[l] - clean_attn[l][:, q, :]).max()
    check(err <= PROB_TOL, f"attention row of layer {l} differs from `attention` by {err}")
err = np.abs(np.load(os.path.join(eff, 'mean_attention.npy')) - attention.mean(axis=(0, 1))).max()
check(err <= PROB_TOL, f"mean attention off by {err}")

logits = np.load(os.path.join(plain, 'logits.npy'))[q]
prediction = int(np.argmax(logits))
check(prediction == report['prediction']['id'], f"prediction {report['prediction']['id']} != argmax {prediction}")
base = log_softmax(logits)[prediction]


def drop(key, heads=None):
    out = os.path.join(work, f'ablate-{key}-{heads}')
    run('ablate', demo, '--tokens', ids, '--mask-keys', str(key), *(['--mask-keys-heads', heads] if heads else []),
        '--out', out)
    return base - log_softmax(np.load(os.path.join(out, 'logits_ablated.npy'))[q])[prediction], out


for j in range(K):
    expected, _ = drop(j)
    check(abs(effect[j] - expected) <= EFFECT_TOL, f"effect of key {j}: {effect[j]} vs NumPy {expected}")
head_effect = np.load(os.path.join(eff, 'head_effect.npy'))
for l, h, j in ((2, 0, 10), (0, 1, 5), (3, 3, 11)):
    expected, out = drop(j, f'{l}.{h}')
    check(abs(head_effect[l, h, j] - expected) <= EFFECT_TOL,
          f"head effect L{l}H{h} key {j}: {head_effect[l, h, j]} vs NumPy {expected}")
    # The head's rows in its own layer: the clean ones with key j removed and renormalised.
    masked = clean_attn[l][h] + np.load(os.path.join(out, f'attn_diff.L{l}.npy'))[h]
    ref = clean_attn[l][h].astype(np.float64).copy()
    ref[:, j] = 0
    ref /= ref.sum(axis=1, keepdims=True)
    err = np.abs(masked - ref).max()
    check(err <= PROB_TOL and (masked[:, j] == 0).all(), f"L{l}H{h} without key {j}: rows off by {err}")

for name, series in (('spearman', effect), ('head_spearman', None)):
    got = np.load(os.path.join(eff, f'{name}.npy'))
    for l in range(L):
        for h in range(H):
            ref = spearman(attention[l, h], effect if series is not None else head_effect[l, h])
            ok = np.isnan(ref) and np.isnan(got[l, h]) or abs(got[l, h] - ref) <= 1e-6
            check(ok, f"{name} L{l}H{h}: {got[l, h]} vs NumPy {ref}")
ref = spearman(attention.mean(axis=(0, 1)), effect)
check(abs(report['mean_spearman'] - ref) <= 1e-6, f"mean spearman {report['mean_spearman']} vs NumPy {ref}")

rain = [i for i, k in enumerate(report['keys']) if k['text'] == ' rain']
check(report['prediction']['text'] == ' rain' and rain and int(np.argmax(effect)) == rain[0],
      f"the induction target (position {rain}) is not the key that matters most: effect {effect.round(3)}")

if failures:
    print('\n'.join(failures))
    sys.exit(1)
print(f"effect: {K} keys, {L}x{H} heads, all checks hold; mean-attention Spearman {report['mean_spearman']:.3f}")
