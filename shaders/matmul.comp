// SPDX-License-Identifier: MIT
// y [M, N] = x [M, K] W^T (+ b) with W [N, K] row-major (the PyTorch Linear layout). Each workgroup of 16 x 16 threads
// computes a 64 x 64 block of y from 64 x 16 slices of x and W staged in shared memory; each thread keeps a 4 x 4
// block of sums in registers (rows ty + 16i, columns tx + 16j, so neighbouring threads read neighbouring words).
#version 450

layout(local_size_x = 16, local_size_y = 16) in;

const uint BM = 64;
const uint BN = 64;
const uint BK = 16;

layout(std430, binding = 0) readonly buffer XBuf { float x[]; };
layout(std430, binding = 1) readonly buffer WBuf { float w[]; };
layout(std430, binding = 2) readonly buffer BBuf { float bias[]; };
layout(std430, binding = 3) writeonly buffer YBuf { float y[]; };

layout(push_constant) uniform Params {
    uint M, N, K;
    uint hasBias;
    uint yStride, colOffset; // y [M, yStride]: this product fills columns [colOffset, colOffset + N)
} pc;

shared float xs[BK][BM + 1];
shared float ws[BK][BN + 1];

void main()
{
    const uint tx = gl_LocalInvocationID.x;
    const uint ty = gl_LocalInvocationID.y;
    const uint tid = ty * 16 + tx;
    const uint m0 = gl_WorkGroupID.y * BM;
    const uint n0 = gl_WorkGroupID.x * BN;
    float acc[4][4];
    for (uint i = 0; i < 4; ++i)
        for (uint j = 0; j < 4; ++j)
            acc[i][j] = 0.0;
    for (uint k0 = 0; k0 < pc.K; k0 += BK) {
        // 64 x 16 elements of each operand, 4 per thread, read along K (contiguous in memory).
        for (uint e = tid; e < BM * BK; e += 256) {
            const uint r = e / BK, c = e % BK, k = k0 + c;
            xs[c][r] = m0 + r < pc.M && k < pc.K ? x[(m0 + r) * pc.K + k] : 0.0;
            ws[c][r] = n0 + r < pc.N && k < pc.K ? w[(n0 + r) * pc.K + k] : 0.0;
        }
        barrier();
        for (uint kk = 0; kk < BK; ++kk) {
            float a[4], b[4];
            for (uint i = 0; i < 4; ++i) {
                a[i] = xs[kk][ty + 16 * i];
                b[i] = ws[kk][tx + 16 * i];
            }
            for (uint i = 0; i < 4; ++i)
                for (uint j = 0; j < 4; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        barrier();
    }
    for (uint i = 0; i < 4; ++i) {
        const uint row = m0 + ty + 16 * i;
        if (row >= pc.M)
            continue;
        for (uint j = 0; j < 4; ++j) {
            const uint col = n0 + tx + 16 * j;
            if (col < pc.N)
                y[row * pc.yStride + pc.colOffset + col] = acc[i][j] + (pc.hasBias != 0u ? bias[pc.colOffset + col] : 0.0);
        }
    }
}
