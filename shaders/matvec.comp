// SPDX-License-Identifier: MIT
// y [M, N] = x [M, K] W^T (+ b) for a few rows M (decode steps: matrix-vector products). Each workgroup computes
// FEATURES output features with LANES threads each: a feature's lanes read W's row once, contiguously, for all M rows
// of x, and reduce in shared memory. Workgroup index x + y * xCount, so N may exceed one grid dimension. MAX_ROWS
// bounds M; the host checks it.
#version 450

const uint LANES = 32;
const uint FEATURES = 4;
layout(local_size_x = 128) in; // LANES * FEATURES

const uint MAX_ROWS = 8;

layout(std430, binding = 0) readonly buffer XBuf { float x[]; };
layout(std430, binding = 1) readonly buffer WBuf { float w[]; };
layout(std430, binding = 2) readonly buffer BBuf { float bias[]; };
layout(std430, binding = 3) writeonly buffer YBuf { float y[]; };

layout(push_constant) uniform Params {
    uint M, N, K;
    uint hasBias;
    uint yStride, colOffset; // y [M, yStride]: this product fills columns [colOffset, colOffset + N)
} pc;

shared float red[MAX_ROWS][FEATURES * LANES];

void main()
{
    const uint t = gl_LocalInvocationID.x;
    const uint lane = t % LANES;
    const uint n = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * FEATURES + t / LANES;
    float sums[MAX_ROWS];
    for (uint m = 0; m < MAX_ROWS; ++m)
        sums[m] = 0.0;
    if (n < pc.N)
        for (uint k = lane; k < pc.K; k += LANES) {
            const float wk = w[n * pc.K + k];
            for (uint m = 0; m < pc.M; ++m)
                sums[m] += x[m * pc.K + k] * wk;
        }
    for (uint m = 0; m < pc.M; ++m)
        red[m][t] = sums[m];
    barrier();
    for (uint stride = LANES / 2; stride > 0; stride /= 2) {
        if (lane < stride)
            for (uint m = 0; m < pc.M; ++m)
                red[m][t] += red[m][t + stride];
        barrier();
    }
    if (n < pc.N && lane < pc.M)
        y[lane * pc.yStride + pc.colOffset + n] = red[lane][t - lane] + (pc.hasBias != 0u ? bias[pc.colOffset + n] : 0.0);
}
