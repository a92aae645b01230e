// SPDX-License-Identifier: MIT
// Rotary position embedding in place on x [heads, t, d]: rotates the first `rotary` dims of every row by the angles of
// its position. cos/sin come from the host ([t, rotary/2]) so they are bit-identical to the CPU core's tables.
#version 450

layout(constant_id = 0) const uint WG = 256;
layout(local_size_x_id = 0) in;

layout(std430, binding = 0) buffer XBuf { float x[]; };
layout(std430, binding = 1) readonly buffer CosBuf { float cosTable[]; };
layout(std430, binding = 2) readonly buffer SinBuf { float sinTable[]; };

layout(push_constant) uniform Params {
    uint heads, t, d, rotary;
    uint interleaved; // 0: pairs (i, i + rotary/2) as HF Llama; 1: pairs (2i, 2i + 1) as llama2.c / GPT-J
} pc;

void main()
{
    const uint halfDims = pc.rotary / 2;
    const uint total = pc.heads * pc.t * halfDims;
    // Grid-stride loop: any size fits in a bounded dispatch.
    for (uint i = gl_GlobalInvocationID.x; i < total; i += gl_NumWorkGroups.x * WG) {
        const uint pair = i % halfDims;
        const uint row = (i / halfDims) % pc.t;
        const uint rowBase = (i / halfDims) * pc.d;
        const uint a = rowBase + (pc.interleaved != 0u ? 2 * pair : pair);
        const uint b = pc.interleaved != 0u ? a + 1 : a + halfDims;
        const float c = cosTable[row * halfDims + pair];
        const float s = sinTable[row * halfDims + pair];
        const float x1 = x[a];
        const float x2 = x[b];
        x[a] = x1 * c - x2 * s;
        x[b] = x2 * c + x1 * s;
    }
}
