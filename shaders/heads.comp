// SPDX-License-Identifier: MIT
// Head layout changes, as splitHeads()/mergeHeads() in layers.cpp. Split: columns [offset, offset + heads * dim) of
// src [n, cols] to head-major dst [heads, n, dim]. Merge: src [heads, n, dim] to dst [n, heads * dim].
#version 450

layout(constant_id = 0) const uint WG = 256;
layout(local_size_x_id = 0) in;

layout(std430, binding = 0) readonly buffer SrcBuf { float src[]; };
layout(std430, binding = 1) writeonly buffer DstBuf { float dst[]; };

layout(push_constant) uniform Params {
    uint n, heads, dim, cols, offset;
    uint merge; // 0: split, 1: merge
} pc;

void main()
{
    const uint total = pc.heads * pc.n * pc.dim;
    for (uint i = gl_GlobalInvocationID.x; i < total; i += gl_NumWorkGroups.x * WG) {
        const uint c = i % pc.dim;
        const uint r = (i / pc.dim) % pc.n;
        const uint h = i / (pc.dim * pc.n);
        const uint headMajor = (h * pc.n + r) * pc.dim + c;
        if (pc.merge != 0u)
            dst[r * pc.heads * pc.dim + h * pc.dim + c] = src[headMajor];
        else
            dst[headMajor] = src[r * pc.cols + pc.offset + h * pc.dim + c];
    }
}
