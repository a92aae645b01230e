# SPDX-License-Identifier: MIT
"""Independent NumPy recomputation of one `attnscope-cli mechanisms` output folder.

Reads q, k, v, the parameters the variant wrote and metrics.json, recomputes the variant from its definition (the
issue's formulas) in float64 and prints one JSON object of discrepancies (max abs errors, mismatch counts) for the
C++ test to bound. Nothing here calls the engine.
"""
import json
import math
import sys

import numpy as np

MASK64 = (1 << 64) - 1


class SplitMix64:
    """engine/mechanisms/random_stream.h, replayed."""

    def __init__(self, seed):
        self.state = seed & MASK64

    def next_u64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n):
        return self.next_u64() % n


def load(folder, name):
    return np.load(f"{folder}/{name}.npy").astype(np.float64)


def model_mask(T, causal, window):
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    keep = np.ones((T, T), bool)
    if causal:
        keep &= j <= i
    if window > 0:
        keep &= (i - j < window) if causal else (np.abs(i - j) < window)
    return keep


def masked_softmax(scores, keep):
    s = np.where(keep, scores, -np.inf)
    top = s.max(axis=1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.where(keep, np.exp(s - top), 0.0)
    total = e.sum(axis=1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def window_pattern(T, w, causal):
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    return ((i - j >= 0) & (i - j < w)) if causal else (np.abs(i - j) < w)


def bigbird_pattern(T, w, g, r, seed, causal):
    keep = window_pattern(T, w, causal).copy()
    keep[:g, :] = True
    keep[:, :g] = True
    blocks = (T + w - 1) // w
    rng = SplitMix64(seed)
    for qb in range(blocks):
        n = qb + 1 if causal else blocks
        cand = list(range(n))
        for t in range(min(r, n)):
            pick = t + rng.below(n - t)
            cand[t], cand[pick] = cand[pick], cand[t]
            kb = cand[t]
            keep[qb * w:(qb + 1) * w, kb * w:(kb + 1) * w] = True
    return keep


def strided_pattern(T, s, causal):
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    local = window_pattern(T, s, causal)
    return local | ((np.abs(i - j) % s == 0) & ((j <= i) if causal else True))


def fixed_pattern(T, s, c):
    """Child et al. 2019 "fixed": the query's own block of s positions, and the last c positions of every block."""
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    return (j // s == i // s) | (j % s >= s - c)


def padding_pattern(T, padded):
    keep = np.ones((T, T), bool)
    keep[:, padded] = False
    return keep


def swin_pattern(prefix, rows, cols, w, s):
    """Swin's cyclic shift by s, window partition and attention mask, replayed on the grid (prefix tokens global)."""
    T = prefix + rows * cols
    keep = np.zeros((T, T), bool)
    keep[:prefix, :] = True
    keep[:, :prefix] = True
    # torch.roll(x, (-s, -s)): rolled position (a, b) holds patch ((a + s) % rows, (b + s) % cols).
    region = np.zeros((rows, cols), int)  # Swin's img_mask regions in rolled coordinates
    cnt = 0
    for hs in (slice(0, -w), slice(-w, -s), slice(-s, None)) if s else (slice(0, None),):
        for ws in (slice(0, -w), slice(-w, -s), slice(-s, None)) if s else (slice(0, None),):
            region[hs, ws] = cnt
            cnt += 1
    win = np.zeros((rows, cols), int)
    for a in range(rows):
        for b in range(cols):
            win[a, b] = (a // w) * ((cols + w - 1) // w) + b // w
    label = {}
    for a in range(rows):
        for b in range(cols):
            label[((a + s) % rows, (b + s) % cols)] = (win[a, b], region[a, b])
    for i in range(rows * cols):
        for j in range(rows * cols):
            keep[prefix + i, prefix + j] = label[divmod(i, cols)] == label[divmod(j, cols)]
    return keep


def rope_rotate(x, cos, sin, interleaved):
    """Rotate-half pairs (i, i + half) or interleaved pairs (2i, 2i + 1) of every row by its angles."""
    half = cos.shape[1]
    out = x.copy()
    ia = np.arange(half) * (2 if interleaved else 1)
    ib = ia + (1 if interleaved else half)
    a, b = x[:, ia], x[:, ib]
    out[:, ia] = a * cos - b * sin
    out[:, ib] = b * cos + a * sin
    return out


def alibi_slopes(n):
    def power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + alibi_slopes(2 * closest)[0::2][: n - closest]


def kl_rows(p, ref):
    rows = p.sum(axis=1) > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * (np.log(np.where(p > 0, p, 1)) - np.log(np.where(p > 0, ref, 1))), 0.0)
    return terms.sum(axis=1)[rows].mean(), np.where(p > 0, ref, 0).sum(axis=1)[rows].mean()


def entropy(p):
    rows = p.sum(axis=1) > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -np.where(p > 0, p * np.log(np.where(p > 0, p, 1)), 0).sum(axis=1)
    return h[rows].mean()


def tanh_scores(p, q, k):
    dq, dk = q.shape[1], k.shape[1]
    wq, wk, vv = p[:, :dq], p[:, dq:dq + dk], p[:, dq + dk]
    feats = np.tanh((q @ wq.T)[:, None, :] + (k @ wk.T)[None, :, :])
    return feats, feats @ vv


def learned_scores(kind, folder, q, k):
    """An RNN seq2seq model's own score (engine/mechanisms/learned_score.h layouts), from learned.npy."""
    if kind == "dot":
        return q @ k.T
    p = load(folder, "learned")
    if kind in ("bahdanau", "concat"):
        return tanh_scores(p, q, k)[1]
    if kind == "general":
        return q @ p @ k.T
    if kind == "location":
        return q @ p[:, :q.shape[1]].T + p[:, q.shape[1]][None, :]
    raise SystemExit(f"reference.py: unknown learned score {kind}")


def main(folder):
    m = json.load(open(f"{folder}/metrics.json"))
    q, k, v = load(folder, "q"), load(folder, "k"), load(folder, "v")
    T, d = q.shape
    inp = m["input"]
    causal, window, scale = inp["causal"], inp["sliding_window"], inp["scale"]
    learned = inp.get("learned_score", "none")
    try:  # T5: the head's relative position bias, added to every score the model's own way of scoring gives
        bias = load(folder, "position_bias")
    except FileNotFoundError:
        bias = 0.0
    if learned == "none":
        # a transformer's cross-attention [T, S] sees every encoder key
        keep = np.ones((T, k.shape[0]), bool) if inp.get("cross") else model_mask(T, causal, window)
        raw = q @ k.T
        own = raw * scale + bias
    else:  # an RNN's cross-attention [T, S]: no mask, its trained score
        keep = np.ones((T, k.shape[0]), bool)
        raw = q @ k.T if q.shape[1] == k.shape[1] else None
        own = learned_scores(learned, folder, q, k)
    exact = masked_softmax(own, keep)
    name, *fields = m["variant"].split(":")
    # longformer and padding end in a comma-separated list of positions
    nums = [int(x) for x in fields] if name not in ("longformer", "padding") else [int(x) for x in fields[:-1]]
    report = {"variant": m["variant"]}
    reference = exact
    mask = None
    probs = None
    out = None
    if name == "exact":
        probs = exact
    elif name == "unscaled":
        probs = masked_softmax(raw + bias, keep)
    elif name == "general":
        w = load(folder, "params")
        probs = masked_softmax(q @ w @ k.T, keep)
        if learned == "general":
            report["learned_err"] = float(np.abs(w - load(folder, "learned")).max())
        else:
            w_fit = np.linalg.pinv(q) @ own @ np.linalg.pinv(k).T
            report["fit_rel_err"] = float(np.abs(q @ w_fit @ k.T - q @ w @ k.T).max() / max(1.0, np.abs(own).max()))
    elif name in ("concat", "additive"):
        p = load(folder, "params")
        feats, scores = tanh_scores(p, q, k)
        probs = masked_softmax(scores, keep)
        if learned == {"concat": "concat", "additive": "bahdanau"}[name]:
            report["learned_err"] = float(np.abs(p - load(folder, "learned")).max())
        else:
            phi = feats[keep]
            target = own[keep]
            v_fit = np.linalg.lstsq(phi, target, rcond=None)[0]
            report["fit_rel_err"] = float(np.abs(phi @ v_fit - phi @ p[:, -1]).max() / max(1.0, np.abs(target).max()))
    elif name == "alibi":
        slope = alibi_slopes(m["heads"])[m["input"].get("head", 0)]
        report["slope_err"] = abs(slope - m["alibi_slope"])
        i = np.arange(T)[:, None]
        j = np.arange(T)[None, :]
        probs = masked_softmax(raw * scale + slope * (j - i), keep)
    elif name in ("window", "longformer", "bigbird", "strided", "fixed", "padding", "lsh", "swin"):
        if name == "swin":
            pattern = swin_pattern(int(m["prefix_tokens"]), int(m["grid_rows"]), int(m["grid_cols"]), *nums)
        elif name == "window":
            pattern = window_pattern(T, nums[0], causal)
        elif name == "longformer":
            pattern = window_pattern(T, nums[0], causal).copy()
            for g in [int(x) for x in fields[1].split(",")]:
                pattern[g, :] = True
                pattern[:, g] = True
        elif name == "bigbird":
            pattern = bigbird_pattern(T, *nums, causal)
        elif name == "strided":
            pattern = strided_pattern(T, nums[0], causal)
        elif name == "fixed":
            pattern = fixed_pattern(T, *nums)
        elif name == "padding":
            pattern = padding_pattern(T, [int(x) for x in fields[0].split(",")])
        else:
            r = load(folder, "features")
            proj_q, proj_k = q @ r, k @ r
            bq = np.argmax(np.concatenate([proj_q, -proj_q], axis=1), axis=1)
            bk = np.argmax(np.concatenate([proj_k, -proj_k], axis=1), axis=1)
            pattern = (bq[:, None] == bk[None, :]) | np.eye(T, dtype=bool)
            report["rotations_shape_ok"] = r.shape == (d, nums[0] // 2)
        mask = pattern & keep
        report["mask_mismatches"] = int((load(folder, "mask").astype(bool) != mask).sum())
        probs = masked_softmax(own, mask)
    elif name == "linformer":
        e, f = load(folder, "E"), load(folder, "F")
        report["projection_shape_ok"] = e.shape == (nums[0], T) and f.shape == (nums[0], T)
        probs = masked_softmax(q @ (e @ k).T * scale, np.ones((T, nums[0]), bool))
        out = probs @ (f @ v)
        reference = masked_softmax(own, np.ones((T, T), bool))
    elif name == "performer":
        w = load(folder, "features")
        x_q, x_k = q * math.sqrt(scale), k * math.sqrt(scale)

        def phi(x):
            return np.exp(x @ w.T - 0.5 * (x * x).sum(axis=1, keepdims=True)) / math.sqrt(w.shape[0])
        kernel = np.where(keep, phi(x_q) @ phi(x_k).T * np.exp(bias), 0.0)
        probs = kernel / kernel.sum(axis=1, keepdims=True)
        worst = 0.0
        for start in range(0, w.shape[0], d):
            block = w[start:start + d]
            unit = block / np.linalg.norm(block, axis=1, keepdims=True)
            worst = max(worst, float(np.abs(unit @ unit.T - np.eye(len(block))).max()))
        report["orthogonality_err"] = worst
    elif name == "flash":
        bq, bk = nums
        probs = exact
        run_max, run_sum = load(folder, "running_max"), load(folder, "running_sum")
        s = np.where(keep, own, -np.inf)
        final_max = s.max(axis=1)
        final_sum = np.where(keep, np.exp(s - final_max[:, None]), 0).sum(axis=1)
        report["running_final_err"] = float(max((np.abs(run_max[-1] - final_max) / np.maximum(1, np.abs(final_max))).max(),
                                                np.abs(run_sum[-1] / final_sum - 1).max()))
        tiles_kv_rows = 0
        for q0 in range(0, T, bq):
            for k0 in range(0, T, bk):
                if keep[q0:q0 + bq, k0:k0 + bk].any():
                    tiles_kv_rows += min(bk, T - k0)
        report["bytes_err"] = abs(m["bytes_moved"] - 4 * (2 * T * d + T + 2 * tiles_kv_rows * d)) + abs(
            m["bytes_moved_standard"] - 4 * (4 * T * d + 4 * T * T))
        report["flash_out_err"] = float(np.abs(load(folder, "out") - load(folder, "exact_out")).max())
        report["flash_probs_err"] = float(np.abs(load(folder, "probs") - load(folder, "exact")).max())
        report["out_scale"] = float(max(1.0, np.abs(load(folder, "exact_out")).max()))
    elif name == "rope":
        theta, rd, inter = nums[0], int(m["rotary_dims"]), bool(m["rope_interleaved"])
        qu, ku = load(folder, "q_unrotated"), load(folder, "k_unrotated")
        pos = np.arange(T)
        try:  # the model's own float32 table re-applied to the unrotated q, k must give back the head's q, k
            inv = np.load(f"{folder}/inv_freq.npy").astype(np.float32)[0]
            angle = (pos.astype(np.float32)[:, None] * inv[None, :]).astype(np.float64)
            f = np.float32(m["cos_sin_scale"])
            mc = (np.cos(angle).astype(np.float32) * f).astype(np.float64)
            ms = (np.sin(angle).astype(np.float32) * f).astype(np.float64)
            report["unrotate_err"] = float(max(np.abs(rope_rotate(qu, mc, ms, inter) - q).max() / np.abs(q).max(),
                                               np.abs(rope_rotate(ku, mc, ms, inter) - k).max() / np.abs(k).max()))
        except FileNotFoundError:  # no RoPE in the model: the head's own q, k are rotated
            report["unrotate_err"] = float(max(np.abs(qu - q).max(), np.abs(ku - k).max()))
        if theta > 0:
            angle = pos[:, None] * float(theta) ** (-2.0 * np.arange(rd // 2) / rd)[None, :]
            qr = rope_rotate(qu, np.cos(angle), np.sin(angle), inter)
            kr = rope_rotate(ku, np.cos(angle), np.sin(angle), inter)
        else:
            qr, kr = qu, ku
        probs = masked_softmax(qr @ kr.T * scale + bias, keep)
    elif name == "gqa":
        kh, vh = load(folder, "k_heads"), load(folder, "v_heads")
        groups, hkv = nums[0], kh.shape[0]
        per = hkv // groups
        kv_head = m["input"]["head"] // (m["heads"] // hkv)
        g = kv_head // per
        kp, vp = kh[g * per:(g + 1) * per].mean(axis=0), vh[g * per:(g + 1) * per].mean(axis=0)
        report["own_kv_err"] = float(max(np.abs(kh[kv_head] - k).max(), np.abs(vh[kv_head] - v).max()))
        probs = masked_softmax(q @ kp.T * scale + bias, keep)
        out = probs @ vp
        report["cache_err"] = abs(m["kv_cache_bytes"] - 2 * T * groups * d * 4)
    else:
        raise SystemExit(f"reference.py: unknown variant {m['variant']}")
    if out is None:
        out = probs @ v
    ref_out = reference @ v
    got_probs, got_out = load(folder, "probs"), load(folder, "out")
    report["exact_err"] = float(np.abs(load(folder, "exact") - exact).max())
    report["exact_out_err"] = float(np.abs(load(folder, "exact_out") - exact @ v).max())
    report["probs_err"] = float(np.abs(got_probs - probs).max())
    report["out_err"] = float(np.abs(got_out - out).max())
    report["out_scale"] = float(max(1.0, np.abs(out).max()))
    report["out_rel_err_err"] = abs(m["out_rel_err"] - np.linalg.norm(out - ref_out) / np.linalg.norm(ref_out))
    report["entropy_err"] = abs(m["entropy_mean"] - entropy(probs))
    if probs.shape == exact.shape and name != "linformer":
        kl, kept = kl_rows(probs, reference)
        report["kl_err"] = abs(m["kl_mean"] - kl)
        report["mass_kept_err"] = abs(m["mass_kept"] - kept)
    else:
        report["kl_null"] = m["kl_mean"] is None and m["mass_kept"] is None
    report["kl_mean"] = m["kl_mean"]
    report["mass_kept"] = m["mass_kept"]
    print(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1])
