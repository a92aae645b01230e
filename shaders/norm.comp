// SPDX-License-Identifier: MIT
// RMSNorm (y = w * (x / sqrt(mean(x^2) + eps))) or LayerNorm (y = (x - mean) / sqrt(var + eps) * w + b, biased
// variance) over the last axis of x [rows, d], as layers.cpp. One workgroup per row.
#version 450

layout(constant_id = 0) const uint WG = 256;
layout(local_size_x_id = 0) in;

layout(std430, binding = 0) readonly buffer XBuf { float x[]; };
layout(std430, binding = 1) readonly buffer WBuf { float w[]; };
layout(std430, binding = 2) readonly buffer BBuf { float b[]; };
layout(std430, binding = 3) writeonly buffer YBuf { float y[]; };

layout(push_constant) uniform Params {
    uint rows, d;
    float eps;
    uint layerNorm; // 0: RMSNorm, 1: LayerNorm
} pc;

shared float red[WG];

float reduceSum(float v)
{
    const uint t = gl_LocalInvocationID.x;
    red[t] = v;
    barrier();
    for (uint stride = WG / 2; stride > 0; stride /= 2) {
        if (t < stride)
            red[t] += red[t + stride];
        barrier();
    }
    const float r = red[0];
    barrier();
    return r;
}

void main()
{
    const uint t = gl_LocalInvocationID.x;
    for (uint row = gl_WorkGroupID.x; row < pc.rows; row += gl_NumWorkGroups.x) {
        const uint base = row * pc.d;
        float mean = 0.0;
        if (pc.layerNorm != 0u) {
            float s = 0.0;
            for (uint i = t; i < pc.d; i += WG)
                s += x[base + i];
            mean = reduceSum(s) / float(pc.d);
        }
        float ss = 0.0;
        for (uint i = t; i < pc.d; i += WG) {
            const float c = x[base + i] - mean;
            ss += c * c;
        }
        const float inv = 1.0 / sqrt(reduceSum(ss) / float(pc.d) + pc.eps);
        for (uint i = t; i < pc.d; i += WG)
            y[base + i] = pc.layerNorm != 0u ? (x[base + i] - mean) * inv * w[i] + b[i] : w[i] * (x[base + i] * inv);
    }
}
