// SPDX-License-Identifier: MIT
// Attention probabilities softmax(scale * Q K^T + mask/bias), rows normalized over all keys, written for output columns
// [col0, col1): the full matrix of a batch of heads, or a tile of one head. One workgroup per (query row, head).
// Pass 1 finds each row's max and sum with a per-thread online softmax; pass 2 writes exp(s - max) / sum.
#version 450
#include "attn_common.glsl"

layout(local_size_x_id = 0) in;

shared float qRow[MAX_HEAD_DIM];

/// Loads query row qi of head h into qRow (all threads call it).
void loadQueryRow(uint h, uint qi)
{
    const uint base = (h * pc.nq + qi) * pc.d;
    for (uint c = gl_LocalInvocationID.x; c < pc.d; c += WG)
        qRow[c] = qData[base + c];
    barrier();
}

/// The masked score of (h, qi, kj): false when the key is masked, else s = scale * (q . k) + bias.
bool maskedScore(uint h, uint qi, uint kj, out float s)
{
    float b;
    s = 0.0;
    if (!maskedBias(h, qi, kj, b))
        return false;
    const uint kBase = kvRowBase(h, kj, pc.d);
    float dot = 0.0;
    for (uint c = 0; c < pc.d; ++c)
        dot += qRow[c] * kData[kBase + c];
    s = pc.scale * dot + b;
    return true;
}

shared float redMax[WG];
shared float redSum[WG]; // 0 = this thread saw no visible key

void main()
{
    const uint t = gl_LocalInvocationID.x;
    const uint qi = pc.row0 + gl_WorkGroupID.x;
    const uint h = pc.head0 + gl_WorkGroupID.y;
    loadQueryRow(h, qi);

    float m = 0.0;
    float l = 0.0;
    for (uint j = t; j < pc.nk; j += WG) {
        float s;
        if (!maskedScore(h, qi, j, s))
            continue;
        if (l == 0.0) {
            m = s;
            l = 1.0;
        } else if (s > m) {
            l = l * exp(m - s) + 1.0;
            m = s;
        } else {
            l += exp(s - m);
        }
    }
    redMax[t] = m;
    redSum[t] = l;
    barrier();
    for (uint stride = WG / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            const float m2 = redMax[t + stride];
            const float l2 = redSum[t + stride];
            const float m1 = redMax[t];
            const float l1 = redSum[t];
            if (l1 == 0.0) {
                redMax[t] = m2;
                redSum[t] = l2;
            } else if (l2 != 0.0) {
                const float mm = max(m1, m2);
                redMax[t] = mm;
                redSum[t] = l1 * exp(m1 - mm) + l2 * exp(m2 - mm);
            }
        }
        barrier();
    }
    const float rowMax = redMax[0];
    const float rowSum = redSum[0];
    const float inv = rowSum > 0.0 ? 1.0 / rowSum : 0.0; // a fully masked row stays zero

    const uint width = pc.col1 - pc.col0;
    const uint outBase = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * width;
    for (uint j = pc.col0 + t; j < pc.col1; j += WG) {
        float s;
        const bool visible = maskedScore(h, qi, j, s);
        outData[outBase + j - pc.col0] = visible && rowSum > 0.0 ? exp(s - rowMax) * inv : 0.0;
    }
}
