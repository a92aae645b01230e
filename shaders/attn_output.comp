// SPDX-License-Identifier: MIT
// Fused attention output O = softmax(scale * Q K^T + mask/bias) V with an online softmax over key tiles of WG keys
// (FlashAttention-style): the [q, k] matrix is never stored. One workgroup per (query row, head); thread t owns
// output dims t, t + WG, ... (at most OUT_PER_THREAD of them). With keysPerSplit, workgroup z covers only keys
// [z * keysPerSplit, ...) and writes its unnormalized partial (max, sum, dv sums) for attn_combine (flash-decoding:
// a decode step at long context keeps many workgroups busy instead of a few).
#version 450
#include "attn_common.glsl"

layout(local_size_x_id = 0) in;

const uint OUT_PER_THREAD = 4; // dv <= OUT_PER_THREAD * WG, checked by the host

shared float tileP[WG];
shared float red[WG];
shared uint tileVisible;

float reduceMax(float x)
{
    const uint t = gl_LocalInvocationID.x;
    red[t] = x;
    barrier();
    for (uint stride = WG / 2; stride > 0; stride /= 2) {
        if (t < stride)
            red[t] = max(red[t], red[t + stride]);
        barrier();
    }
    const float r = red[0];
    barrier();
    return r;
}

float reduceSum(float x)
{
    const uint t = gl_LocalInvocationID.x;
    red[t] = x;
    barrier();
    for (uint stride = WG / 2; stride > 0; stride /= 2) {
        if (t < stride)
            red[t] += red[t + stride];
        barrier();
    }
    const float r = red[0];
    barrier();
    return r;
}

void main()
{
    const uint t = gl_LocalInvocationID.x;
    const uint qi = pc.row0 + gl_WorkGroupID.x;
    const uint h = pc.head0 + gl_WorkGroupID.y;
    const uint kvh = h / (pc.hq / pc.hkv);
    loadQueryRow(h, qi);

    float acc[OUT_PER_THREAD];
    for (uint c = 0; c < OUT_PER_THREAD; ++c)
        acc[c] = 0.0;
    float m = 0.0; // running max over the visible keys seen so far
    float l = 0.0; // running sum of exp(s - m); 0 until a visible key appears

    const bool split = pc.keysPerSplit != 0u;
    const uint kBegin = split ? gl_WorkGroupID.z * pc.keysPerSplit : 0u;
    const uint kEnd = split ? min(pc.nk, kBegin + pc.keysPerSplit) : pc.nk;
    for (uint k0 = kBegin; k0 < kEnd; k0 += WG) {
        if (t == 0)
            tileVisible = 0u;
        barrier();
        float s = 0.0;
        const bool visible = k0 + t < kEnd && maskedScore(h, qi, k0 + t, s);
        if (visible)
            atomicOr(tileVisible, 1u);
        // Masked lanes contribute the lowest finite value so they never win the max.
        const float tileMax = reduceMax(visible ? s : -3.402823466e38);
        const bool anyVisible = tileVisible != 0u; // uniform: set before the reduction's barriers
        barrier(); // everyone has read the flag before thread 0 clears it for the next tile
        if (!anyVisible)
            continue;
        const float newMax = l == 0.0 ? tileMax : max(m, tileMax);
        const float alpha = l == 0.0 ? 0.0 : exp(m - newMax);
        const float p = visible ? exp(s - newMax) : 0.0;
        tileP[t] = p;
        l = l * alpha + reduceSum(p); // reduceSum's barriers also publish tileP
        m = newMax;
        const uint tileKeys = min(WG, kEnd - k0);
        for (uint c = 0; c < OUT_PER_THREAD; ++c) {
            const uint dim = t + c * WG;
            if (dim >= pc.dv)
                break;
            float a = acc[c] * alpha;
            for (uint jj = 0; jj < tileKeys; ++jj)
                a += tileP[jj] * vData[(kvh * pc.kvRows + k0 + jj) * pc.dv + dim];
            acc[c] = a;
        }
        barrier(); // tileP is rewritten by the next tile
    }

    if (split) { // partial block of (h, qi, z): max, sum, then the dv unnormalized sums
        const uint base = ((h * pc.nq + qi) * gl_NumWorkGroups.z + gl_WorkGroupID.z) * (pc.dv + 2);
        if (t == 0) {
            outData[base] = m;
            outData[base + 1] = l;
        }
        for (uint c = 0; c < OUT_PER_THREAD; ++c) {
            const uint dim = t + c * WG;
            if (dim < pc.dv)
                outData[base + 2 + dim] = acc[c];
        }
        return;
    }
    const float inv = l > 0.0 ? 1.0 / l : 0.0; // a fully masked row gives a zero output
    const uint outBase = (h * pc.nq + qi) * pc.dv;
    for (uint c = 0; c < OUT_PER_THREAD; ++c) {
        const uint dim = t + c * WG;
        if (dim < pc.dv)
            outData[outBase + dim] = acc[c] * inv;
    }
}
