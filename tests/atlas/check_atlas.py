#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The head atlas of `attnscope-cli atlas` against a NumPy computation of the published definitions from the
attention that `attnscope-cli attention` writes for the same input, and the induction head of the demo decoder.
usage: check_atlas.py CLI DEMO_MODEL FIXTURE_MODEL WORKDIR. Exit 0 only if every check holds."""
import json, os, subprocess, sys
import numpy as np

cli, demo, fixture, work = sys.argv[1:5]
# Atlas scores are sums of the very float32 probabilities attention.npy holds, accumulated in double on both sides:
# they differ by summation order only.
TOL = 1e-6
TEXT = ("Ben went to the park. Ben said the magic words: gold wind frog lamp. "
        "Then he said again: gold wind frog lamp")
failures = []


def run(*args):
    r = subprocess.run([cli, *args, '--backend', 'cpu'], capture_output=True, text=True, timeout=300)
    if r.returncode:
        sys.exit(f"{' '.join(args[:2])} failed rc={r.returncode}: {r.stderr.strip()[-300:]}")


def reference(tokens, attention):
    """scores[name] [layers, heads] from the definitions, per query then pooled (sum, count) over queries."""
    t = np.asarray(tokens)
    n = len(t)
    out = {}
    L, H = len(attention), attention[0].shape[0]
    sums = {k: np.zeros((L, H)) for k in ('previous_token', 'duplicate_token', 'induction', 'first_token',
                                          'entropy', 'mean_distance')}
    counts = {k: 0 for k in sums}
    for q in range(n):
        earlier = [j for j in range(q) if t[j] == t[q]]
        induction_keys = [j for j in range(1, q + 1) if t[j - 1] == t[q] and j - 1 < q]
        for l, a in enumerate(attention):
            row = a[:, q, :].astype(np.float64)  # [heads, keys]
            if q >= 1:
                sums['previous_token'][l] += row[:, q - 1]
            if earlier:
                sums['duplicate_token'][l] += row[:, earlier].sum(axis=1)
            if induction_keys:
                sums['induction'][l] += row[:, induction_keys].sum(axis=1)
            sums['first_token'][l] += row[:, 0]
            with np.errstate(divide='ignore', invalid='ignore'):
                sums['entropy'][l] += -np.where(row > 0, row * np.log(row), 0.0).sum(axis=1)
            sums['mean_distance'][l] += (row * (q - np.arange(n))).sum(axis=1)
        counts['previous_token'] += q >= 1
        counts['duplicate_token'] += bool(earlier)
        counts['induction'] += bool(induction_keys)
        for k in ('first_token', 'entropy', 'mean_distance'):
            counts[k] += 1
    for k in sums:
        out[k] = sums[k] / counts[k] if counts[k] else np.full((L, H), np.nan)
    return out


def check_against_attention(model, name, source_args):
    adir, sdir = os.path.join(work, name + '-attention'), os.path.join(work, name + '-atlas')
    run('attention', model, *source_args, '--out', adir)
    run('atlas', model, *source_args, '--out', sdir)
    manifest = json.load(open(os.path.join(adir, 'manifest.json')))
    tokens = [t['id'] for t in manifest['tokens']]
    layers = sum(1 for f in manifest['files'] if f['path'].startswith('attn.L'))
    attention = [np.load(os.path.join(adir, f'attn.L{l}.npy')) for l in range(layers)]
    ref = reference(tokens, attention)
    scores = json.load(open(os.path.join(sdir, 'scores.json')))
    for key, want in ref.items():
        got_json = np.array([[np.nan if v is None else v for v in row] for row in scores[key]], dtype=np.float64)
        got_npy = np.load(os.path.join(sdir, key + '.npy')).astype(np.float64)
        for label, got in (('json', got_json), ('npy', got_npy)):
            err = np.nanmax(np.abs(got - want)) if np.isfinite(want).any() else 0.0
            if got.shape != want.shape or err > TOL or (np.isnan(got) != np.isnan(want)).any():
                failures.append(f"{name} {key} ({label}): max error {err:.2e}")
    return ref


ref = check_against_attention(demo, 'demo', ['--prompt', TEXT])
induction = ref['induction']
best = np.unravel_index(np.argmax(induction), induction.shape)
if tuple(int(i) for i in best) != (2, 0):
    failures.append(f"demo: the top induction head is {tuple(int(i) for i in best)}, not layer 2 head 0: {induction}")
else:
    print(f"demo: layer 2 head 0 ranks first by induction ({induction[2, 0]:.3f}; next best "
          f"{np.sort(induction.ravel())[-2]:.3f})")

ids = ','.join(str(i) for i in [5, 9, 7, 5, 9, 7, 11, 5, 9])
check_against_attention(fixture, 'fixture', ['--tokens', ids])

# Corpus shards merge to the atlas of the whole corpus.
corpus = os.path.join(work, 'corpus.txt')
with open(corpus, 'w') as f:
    f.write('Ben went to the park.\n\nLily found a red ball. Lily gave it to Ben.\nThe dog ran. The dog ran.\n'
            'Sam said the magic words: moon tree. Then he said again: moon tree\n')
run('atlas', demo, '--corpus', corpus, '--out', os.path.join(work, 'whole'))
for i in range(3):
    run('atlas', demo, '--corpus', corpus, '--shard', f'{i}/3', '--out', os.path.join(work, f'shard{i}'))
r = subprocess.run([cli, 'atlas-merge', *[os.path.join(work, f'shard{i}') for i in range(3)], '--out',
                    os.path.join(work, 'merged')], capture_output=True, text=True, timeout=60)
if r.returncode:
    sys.exit(f"atlas-merge failed: {r.stderr}")
whole = json.load(open(os.path.join(work, 'whole', 'scores.json')))
merged = json.load(open(os.path.join(work, 'merged', 'scores.json')))
if whole['inputs'] != 4 or merged['inputs'] != 4:
    failures.append(f"corpus: {whole['inputs']} / {merged['inputs']} inputs, expected 4")
for key in ref:
    err = np.nanmax(np.abs(np.array(whole[key], dtype=np.float64) - np.array(merged[key], dtype=np.float64)))
    if err > TOL:
        failures.append(f"corpus: merged {key} differs from the whole corpus by {err:.2e}")

for f in failures:
    print(f)
print(f"{'FAILED' if failures else 'OK'}: atlas scores against the definitions, demo induction head, shard merge")
sys.exit(1 if failures else 0)
