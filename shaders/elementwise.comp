// SPDX-License-Identifier: MIT
// In place on x [n]: x += y (residual adds), x *= y (SwiGLU's gate times up), x *= factor (logit scaling), x
// clamped to [-factor, factor] (olmo's clip_qkv) or x *= y[i / block] (head masks: block b of x, e.g. one head of a
// head-major tensor, times factor y[b]).
#version 450

layout(constant_id = 0) const uint WG = 256;
layout(local_size_x_id = 0) in;

layout(std430, binding = 0) buffer XBuf { float x[]; };
layout(std430, binding = 1) readonly buffer YBuf { float y[]; };

layout(push_constant) uniform Params {
    uint n;
    uint op; // 0: add y, 1: multiply by y, 2: multiply by factor, 3: clamp to [-factor, factor], 4: multiply block-wise by y
    float factor;
    uint block;
} pc;

void main()
{
    for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += gl_NumWorkGroups.x * WG)
        x[i] = pc.op == 0u ? x[i] + y[i]
            : pc.op == 1u  ? x[i] * y[i]
            : pc.op == 2u  ? x[i] * pc.factor
            : pc.op == 3u  ? clamp(x[i], -pc.factor, pc.factor)
                           : x[i] * y[i / pc.block];
}
