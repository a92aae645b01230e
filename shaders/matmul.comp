// SPDX-License-Identifier: MIT
// y [M, N] = x [M, K] W^T (+ b) with W [N, K] row-major (the PyTorch Linear layout), in TILE x TILE shared-memory tiles.
#version 450

layout(constant_id = 0) const uint TILE = 16;
layout(local_size_x_id = 0, local_size_y_id = 0) in;

layout(std430, binding = 0) readonly buffer XBuf { float x[]; };
layout(std430, binding = 1) readonly buffer WBuf { float w[]; };
layout(std430, binding = 2) readonly buffer BBuf { float bias[]; };
layout(std430, binding = 3) writeonly buffer YBuf { float y[]; };

layout(push_constant) uniform Params {
    uint M, N, K;
    uint hasBias;
} pc;

shared float xTile[TILE][TILE];
shared float wTile[TILE][TILE];

void main()
{
    const uint tx = gl_LocalInvocationID.x;
    const uint ty = gl_LocalInvocationID.y;
    const uint row = gl_WorkGroupID.y * TILE + ty; // of x and y
    const uint col = gl_WorkGroupID.x * TILE + tx; // of y (= row of W)
    const uint wRow = gl_WorkGroupID.x * TILE + ty; // the W row this thread loads
    float acc = 0.0;
    for (uint k0 = 0; k0 < pc.K; k0 += TILE) {
        xTile[ty][tx] = row < pc.M && k0 + tx < pc.K ? x[row * pc.K + k0 + tx] : 0.0;
        wTile[ty][tx] = wRow < pc.N && k0 + tx < pc.K ? w[wRow * pc.K + k0 + tx] : 0.0;
        barrier();
        for (uint kk = 0; kk < TILE; ++kk)
            acc += xTile[ty][kk] * wTile[tx][kk];
        barrier();
    }
    if (row < pc.M && col < pc.N)
        y[row * pc.N + col] = acc + (pc.hasBias != 0u ? bias[col] : 0.0);
}
