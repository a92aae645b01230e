// SPDX-License-Identifier: MIT
// Elementwise activations in place on x [n], as applyActivation() in layers.cpp: relu, exact gelu (erf), tanh gelu
// and silu. GLSL has no erf: erfc comes from the Numerical Recipes Chebyshev fit (relative error < 1.2e-7).
#version 450

layout(constant_id = 0) const uint WG = 256;
layout(local_size_x_id = 0) in;

layout(std430, binding = 0) buffer XBuf { float x[]; };

layout(push_constant) uniform Params {
    uint n;
    uint kind; // 0 relu, 1 gelu, 2 gelu (tanh form), 3 silu: the order of attn::Activation
} pc;

float erfcApprox(float v)
{
    const float z = abs(v);
    const float t = 1.0 / (1.0 + 0.5 * z);
    const float r = t
        * exp(-z * z - 1.26551223
            + t * (1.00002368
                + t * (0.37409196
                    + t * (0.09678418
                        + t * (-0.18628806
                            + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
    return v >= 0.0 ? r : 2.0 - r;
}

// tanh from one exp of a non-positive argument: no overflow, full precision near 0.
float tanhStable(float u)
{
    const float e = exp(-2.0 * abs(u));
    return sign(u) * (1.0 - e) / (1.0 + e);
}

void main()
{
    for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += gl_NumWorkGroups.x * WG) {
        const float v = x[i];
        float r;
        if (pc.kind == 0u)
            r = v > 0.0 ? v : 0.0;
        else if (pc.kind == 1u)
            r = 0.5 * v * erfcApprox(-v * 0.70710678118654752); // 1 + erf(u) == erfc(-u)
        else if (pc.kind == 2u)
            r = 0.5 * v * (1.0 + tanhStable(0.79788456080286536 * (v + 0.044715 * v * v * v)));
        else
            r = v / (1.0 + exp(-v));
        x[i] = r;
    }
}
