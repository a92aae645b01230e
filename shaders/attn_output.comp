// SPDX-License-Identifier: MIT
// Fused attention output O = softmax(scale * Q K^T + mask/bias) V with an online softmax over key tiles of WG keys
// (FlashAttention-style): the [q, k] matrix is never stored. A workgroup takes ROWS query rows of one head, so each
// key and value row it reads serves all of them; thread t scores key k0 + t for every row and owns output dims
// t, t + WG, ... (at most OUT_PER_THREAD of them). With keysPerSplit, workgroup z covers only keys
// [z * keysPerSplit, ...) and writes its unnormalized partial (max, sum, dv sums) for attn_combine (flash-decoding:
// a decode step at long context keeps many workgroups busy instead of a few).
#version 450
#include "attn_common.glsl"

layout(local_size_x_id = 0) in;

const uint OUT_PER_THREAD = 4; // dv <= OUT_PER_THREAD * WG, checked by the host
const float LOWEST = -3.402823466e38; // masked lanes never win the max

shared float tileP[ROWS][WG];
shared float red[ROWS][WG];
shared uint tileVisible[ROWS];

/// Tree reduction of red[r][*] for every row at once (max or sum); the result lands in red[r][0].
void reduceRows(bool isMax)
{
    const uint t = gl_LocalInvocationID.x;
    barrier();
    for (uint stride = WG / 2; stride > 0; stride /= 2) {
        if (t < stride)
            for (uint r = 0; r < ROWS; ++r)
                red[r][t] = isMax ? max(red[r][t], red[r][t + stride]) : red[r][t] + red[r][t + stride];
        barrier();
    }
}

void main()
{
    const uint t = gl_LocalInvocationID.x;
    const uint firstRow = pc.row0 + gl_WorkGroupID.x * ROWS;
    const uint h = pc.head0 + gl_WorkGroupID.y;
    loadQueryBlock(h, firstRow);

    float acc[ROWS][OUT_PER_THREAD];
    float m[ROWS]; // running max over the visible keys seen so far
    float l[ROWS]; // running sum of exp(s - m); 0 until a visible key appears
    for (uint r = 0; r < ROWS; ++r) {
        m[r] = 0.0;
        l[r] = 0.0;
        for (uint c = 0; c < OUT_PER_THREAD; ++c)
            acc[r][c] = 0.0;
    }

    const bool split = pc.keysPerSplit != 0u;
    const uint kBegin = split ? gl_WorkGroupID.z * pc.keysPerSplit : 0u;
    const uint kEnd = split ? min(pc.nk, kBegin + pc.keysPerSplit) : pc.nk;
    for (uint k0 = kBegin; k0 < kEnd; k0 += WG) {
        if (t < ROWS)
            tileVisible[t] = 0u;
        barrier();
        float s[ROWS];
        bool visible[ROWS];
        blockScores(h, firstRow, k0 + t, kEnd, s, visible);
        for (uint r = 0; r < ROWS; ++r)
            if (visible[r])
                atomicOr(tileVisible[r], 1u);
        for (uint r = 0; r < ROWS; ++r)
            red[r][t] = visible[r] ? s[r] : LOWEST;
        reduceRows(true);
        float alpha[ROWS];
        bool anyRow = false;
        for (uint r = 0; r < ROWS; ++r) {
            const bool rowVisible = tileVisible[r] != 0u; // uniform: set before the reduction's barriers
            const float newMax = !rowVisible ? m[r] : l[r] == 0.0 ? red[r][0] : max(m[r], red[r][0]);
            alpha[r] = !rowVisible ? 1.0 : l[r] == 0.0 ? 0.0 : exp(m[r] - newMax);
            m[r] = newMax;
            anyRow = anyRow || rowVisible;
        }
        if (!anyRow) { // the whole block is masked here (causal prefill above the diagonal)
            barrier(); // everyone has read red and tileVisible before the next tile rewrites them
            continue;
        }
        barrier(); // red's maxima are read before it is reused for the sums
        for (uint r = 0; r < ROWS; ++r) {
            const float p = visible[r] ? exp(s[r] - m[r]) : 0.0;
            tileP[r][t] = p;
            red[r][t] = p;
        }
        reduceRows(false); // its barriers also publish tileP
        for (uint r = 0; r < ROWS; ++r)
            l[r] = l[r] * alpha[r] + red[r][0];
        const uint tileKeys = min(WG, kEnd - k0);
        for (uint c = 0; c < OUT_PER_THREAD; ++c) {
            const uint dim = t + c * WG;
            if (dim >= pc.dv)
                break;
            float a[ROWS];
            for (uint r = 0; r < ROWS; ++r)
                a[r] = acc[r][c] * alpha[r];
            for (uint jj = 0; jj < tileKeys; ++jj) {
                const float v = vData[kvRowBase(h, k0 + jj, pc.dv) + dim];
                for (uint r = 0; r < ROWS; ++r)
                    a[r] += tileP[r][jj] * v;
            }
            for (uint r = 0; r < ROWS; ++r)
                acc[r][c] = a[r];
        }
        barrier(); // tileP, red and tileVisible are rewritten by the next tile
    }

    for (uint r = 0; r < ROWS; ++r) {
        const uint qi = firstRow + r;
        if (qi >= pc.row1)
            break;
        if (split) { // partial block of (h, qi, z): max, sum, then the dv unnormalized sums
            const uint base = ((h * pc.nq + qi) * gl_NumWorkGroups.z + gl_WorkGroupID.z) * (pc.dv + 2);
            if (t == 0) {
                outData[base] = m[r];
                outData[base + 1] = l[r];
            }
            for (uint c = 0; c < OUT_PER_THREAD; ++c) {
                const uint dim = t + c * WG;
                if (dim < pc.dv)
                    outData[base + 2 + dim] = acc[r][c];
            }
            continue;
        }
        const float inv = l[r] > 0.0 ? 1.0 / l[r] : 0.0; // a fully masked row gives a zero output
        const uint outBase = (h * pc.nq + qi) * pc.dv;
        for (uint c = 0; c < OUT_PER_THREAD; ++c) {
            const uint dim = t + c * WG;
            if (dim < pc.dv)
                outData[outBase + dim] = acc[r][c] * inv;
        }
    }
}
