#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""What integer activations would cost in accuracy: the float64 Llama forward over ggml's dequantized weights of every
quantized GGUF fixture (../shared/fixtures/gguf, the hf-tiny-llama and kq256 copies), with the activations of every
product with a quantized weight rounded to int8 (as ggml's Q8_0 / Q8_K dots round them, one scale per block of 32)
or to int16 (per 32 or 256), against the fixtures' float64 logits goldens.

usage: activation_quant_error.py [SHARED_DIR]   (default ../shared next to the checkout)"""
import json, os, sys
import numpy as np
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, '..', 'tests', 'reference'))
import phi3_reference
shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, '..', '..', 'shared')
root = os.path.join(shared, 'fixtures', 'gguf')
man = json.load(open(root + '/manifest.json'))
def quant(x, bits, block):
    if bits is None: return x
    qmax = 2 ** (bits - 1) - 1
    shp = x.shape; xb = x.reshape(-1, block)
    d = np.abs(xb).max(-1, keepdims=True) / qmax; d[d == 0] = 1
    return (np.round(xb / d) * d).reshape(shp)
for model, entry in man['models'].items():
    if model == 'stories260K': continue
    cfg = entry.get('hf_config') or json.load(open(os.path.join(shared, 'fixtures', 'hf-tiny', 'llama', 'config.json'))); H, D = cfg['num_attention_heads'], cfg['hidden_size']; KV = cfg['num_key_value_heads']; hd = D // H
    for f in entry['files']:
        if not isinstance(f.get('deq_dir'), str): continue
        stem = os.path.basename(f['path'])[:-5]
        gold = f"{root}/{model}/golden/{stem}"
        if not os.path.isdir(gold): continue
        deq = f"{root}/{f['deq_dir']}"
        W = {n[:-4]: np.load(f"{deq}/{n}").astype(np.float64) for n in os.listdir(deq)}
        qtypes = {t['name']: t['type'] for t in f['tensors']}
        def unperm(w, n): return w.reshape(n, hd // 2, 2, w.shape[1]).swapaxes(1, 2).reshape(w.shape)
        ids = entry['prompt_ids']
        want = np.load(gold + '/logits.npy')
        for bits, block in ((None, 32), (8, 32), (16, 32), (16, 256)):
            T = len(ids)
            x = W['token_embd.weight'][ids]
            cos, sin = phi3_reference.rope_tables(cfg, T)
            def lin(a, name):
                w = W[name]
                return (quant(a, bits, block if a.shape[-1] % block == 0 else 32) if qtypes[name] not in ('F32',) else a) @ w.T
            rms = lambda v, w: w * (v / np.sqrt((v * v).mean(-1, keepdims=True) + cfg['rms_norm_eps']))
            for l in range(cfg['num_hidden_layers']):
                p = f'blk.{l}.'
                h = rms(x, W[p + 'attn_norm.weight'])
                q = unperm(W[p + 'attn_q.weight'], H); k = unperm(W[p + 'attn_k.weight'], KV)
                W['_q'], W['_k'] = q, k; qtypes['_q'] = qtypes[p + 'attn_q.weight']; qtypes['_k'] = qtypes[p + 'attn_k.weight']
                qq = lin(h, '_q').reshape(T, H, hd).transpose(1, 0, 2); kk = lin(h, '_k').reshape(T, KV, hd).transpose(1, 0, 2)
                vv = lin(h, p + 'attn_v.weight').reshape(T, KV, hd).transpose(1, 0, 2)
                rh = lambda z: np.concatenate([-z[..., hd // 2:], z[..., :hd // 2]], -1)
                qq, kk = qq * cos + rh(qq) * sin, kk * cos + rh(kk) * sin
                kk, vv = np.repeat(kk, H // KV, 0), np.repeat(vv, H // KV, 0)
                s = qq @ kk.transpose(0, 2, 1) / np.sqrt(hd) + np.triu(np.full((T, T), -np.inf), 1)
                a = np.exp(s - s.max(-1, keepdims=True)); a /= a.sum(-1, keepdims=True)
                x = x + lin((a @ vv).transpose(1, 0, 2).reshape(T, D), p + 'attn_output.weight')
                h = rms(x, W[p + 'ffn_norm.weight'])
                g, u = lin(h, p + 'ffn_gate.weight'), lin(h, p + 'ffn_up.weight')
                x = x + lin(u * g / (1 + np.exp(-g)), p + 'ffn_down.weight')
            out = 'output.weight' if 'output.weight' in W else 'token_embd.weight'
            logits = lin(rms(x, W['output_norm.weight']), out)
            print(f"{stem:24s} activations {('float64' if bits is None else f'int{bits}/{block}'):10s} max |logit - golden| {np.abs(logits - want).max():.2e}  (logit range {np.abs(want).max():.1f})")
