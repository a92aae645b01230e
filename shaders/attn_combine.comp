// SPDX-License-Identifier: MIT
// Joins the partials of attn_output's split key ranges: O = sum_z acc_z exp(m_z - M) / sum_z l_z exp(m_z - M) with
// M the largest m_z among splits that saw a visible key (l_z > 0); a row with none gives zeros, as the CPU core.
// One workgroup per (query row, head).
#version 450

layout(constant_id = 0) const uint WG = 64;
layout(local_size_x_id = 0) in;

layout(std430, binding = 0) readonly buffer PartialBuf { float partial[]; }; // [hq, nq, splits, dv + 2]
layout(std430, binding = 1) writeonly buffer OutBuf { float outData[]; }; // [hq, nq, dv]

layout(push_constant) uniform Params {
    uint hq, nq, dv, splits;
} pc;

void main()
{
    const uint qi = gl_WorkGroupID.x;
    const uint h = gl_WorkGroupID.y;
    const uint first = (h * pc.nq + qi) * pc.splits * (pc.dv + 2);
    float m = 0.0;
    bool any = false;
    for (uint z = 0; z < pc.splits; ++z) {
        const uint b = first + z * (pc.dv + 2);
        if (partial[b + 1] > 0.0) {
            m = any ? max(m, partial[b]) : partial[b];
            any = true;
        }
    }
    float l = 0.0;
    for (uint z = 0; z < pc.splits; ++z) {
        const uint b = first + z * (pc.dv + 2);
        if (partial[b + 1] > 0.0)
            l += partial[b + 1] * exp(partial[b] - m);
    }
    const float inv = l > 0.0 ? 1.0 / l : 0.0;
    for (uint dim = gl_LocalInvocationID.x; dim < pc.dv; dim += WG) {
        float o = 0.0;
        for (uint z = 0; z < pc.splits; ++z) {
            const uint b = first + z * (pc.dv + 2);
            if (partial[b + 1] > 0.0)
                o += partial[b + 2 + dim] * exp(partial[b] - m);
        }
        outData[(h * pc.nq + qi) * pc.dv + dim] = o * inv;
    }
}
