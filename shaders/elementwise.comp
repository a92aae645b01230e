// SPDX-License-Identifier: MIT
// x[i] += y[i] (residual adds) or x[i] *= y[i] (SwiGLU's gate times up), in place on x [n].
#version 450

layout(constant_id = 0) const uint WG = 256;
layout(local_size_x_id = 0) in;

layout(std430, binding = 0) buffer XBuf { float x[]; };
layout(std430, binding = 1) readonly buffer YBuf { float y[]; };

layout(push_constant) uniform Params {
    uint n;
    uint multiply; // 0: add, 1: multiply
} pc;

void main()
{
    for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += gl_NumWorkGroups.x * WG)
        x[i] = pc.multiply != 0u ? x[i] * y[i] : x[i] + y[i];
}
