// SPDX-License-Identifier: MIT
// Attention probabilities softmax(scale * Q K^T + mask/bias), rows normalized over all keys, written for output columns
// [col0, col1): the full matrix of a batch of heads, or a tile of one head. A workgroup takes ROWS query rows
// [row0 + x * ROWS, ...) (below row1) of head head0 + y, so each key row read serves all of them. Pass 1 finds each
// row's max and sum with a per-thread online softmax; pass 2 writes exp(s - max) / sum.
#version 450
#include "attn_common.glsl"

layout(local_size_x_id = 0) in;

shared float redMax[ROWS][WG];
shared float redSum[ROWS][WG]; // 0 = this thread saw no visible key

void main()
{
    const uint t = gl_LocalInvocationID.x;
    const uint firstRow = pc.row0 + gl_WorkGroupID.x * ROWS;
    const uint h = pc.head0 + gl_WorkGroupID.y;
    loadQueryBlock(h, firstRow);

    float m[ROWS];
    float l[ROWS];
    for (uint r = 0; r < ROWS; ++r) {
        m[r] = 0.0;
        l[r] = 0.0;
    }
    for (uint j = t; j < pc.nk; j += WG) {
        float s[ROWS];
        bool visible[ROWS];
        if (!blockScores(h, firstRow, j, pc.nk, s, visible))
            continue;
        for (uint r = 0; r < ROWS; ++r) {
            if (!visible[r])
                continue;
            if (l[r] == 0.0) {
                m[r] = s[r];
                l[r] = 1.0;
            } else if (s[r] > m[r]) {
                l[r] = l[r] * exp(m[r] - s[r]) + 1.0;
                m[r] = s[r];
            } else {
                l[r] += exp(s[r] - m[r]);
            }
        }
    }
    for (uint r = 0; r < ROWS; ++r) {
        redMax[r][t] = m[r];
        redSum[r][t] = l[r];
    }
    barrier();
    for (uint stride = WG / 2; stride > 0; stride /= 2) {
        if (t < stride)
            for (uint r = 0; r < ROWS; ++r) {
                const float m2 = redMax[r][t + stride];
                const float l2 = redSum[r][t + stride];
                const float m1 = redMax[r][t];
                const float l1 = redSum[r][t];
                if (l1 == 0.0) {
                    redMax[r][t] = m2;
                    redSum[r][t] = l2;
                } else if (l2 != 0.0) {
                    const float mm = max(m1, m2);
                    redMax[r][t] = mm;
                    redSum[r][t] = l1 * exp(m1 - mm) + l2 * exp(m2 - mm);
                }
            }
        barrier();
    }

    const uint width = pc.col1 - pc.col0;
    const uint rows = pc.row1 - pc.row0;
    for (uint j = pc.col0 + t; j < pc.col1; j += WG) {
        float s[ROWS];
        bool visible[ROWS];
        blockScores(h, firstRow, j, pc.col1, s, visible);
        for (uint r = 0; r < ROWS && firstRow + r < pc.row1; ++r) {
            const float rowSum = redSum[r][0];
            const float inv = rowSum > 0.0 ? 1.0 / rowSum : 0.0; // a fully masked row stays zero
            const float p = visible[r] && rowSum > 0.0 ? exp(s[r] - redMax[r][0]) * inv : 0.0;
            outData[(gl_WorkGroupID.y * rows + firstRow + r - pc.row0) * width + j - pc.col0] = p;
        }
    }
}
