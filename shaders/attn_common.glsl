// SPDX-License-Identifier: MIT
// Shared by the attention kernels: operand bindings, parameters and the mask/score rules of the CPU core
// (engine/attention/attention.cpp): causal, sliding window, padded keys, keep mask, additive bias (-inf = masked).
#extension GL_GOOGLE_include_directive : require

layout(constant_id = 0) const uint WG = 64; // threads per workgroup (also local_size_x)
const uint MAX_HEAD_DIM = 256; // q/k/v head dims the kernels accept; the host checks it

layout(std430, binding = 0) readonly buffer QBuf { float qData[]; };
layout(std430, binding = 1) readonly buffer KBuf { float kData[]; };
layout(std430, binding = 2) readonly buffer VBuf { float vData[]; };
layout(std430, binding = 3) writeonly buffer OutBuf { float outData[]; };
layout(std430, binding = 4) readonly buffer KeyKeepBuf { uint keyKeep[]; };
layout(std430, binding = 5) readonly buffer KeepBuf { float keepData[]; };
layout(std430, binding = 6) readonly buffer BiasBuf { float biasData[]; };

layout(push_constant) uniform Params {
    uint hq, hkv, nq, nk, d, dv;
    float scale;
    uint causal;
    int queryOffset;
    int window; // sliding window, 0 = none
    uint hasKeyKeep;
    uint hasKeep;
    uint keepHeadStride; // 0 when the keep mask is shared by all heads
    uint hasBias;
    uint biasHeadStride;
    uint head0; // first query head of this dispatch (workgroup y adds to it)
    uint row0; // first query row of this dispatch (workgroup x adds to it)
    uint col0, col1; // output columns [col0, col1) of the probability kernel
    uint kvRows; // rows per KV head in the K/V buffers (>= nk: a KV cache with spare capacity)
    uint keysPerSplit; // attn_output: 0, or keys per workgroup z when long key ranges are split (attn_combine joins)
    uint row1; // end (exclusive) of the query rows this dispatch covers
    float softcap; // > 0: scaled scores s -> softcap * tanh(s / softcap) before the bias (gemma2); 0 = none
} pc;

layout(constant_id = 1) const uint ROWS = 1; // query rows per workgroup (<= WG): each key row read serves them all

shared float qBlock[ROWS][MAX_HEAD_DIM];

// Bit pattern of -inf: compared as bits so that no compiler float mode can fold the test away.
const uint NEG_INF_BITS = 0xff800000u;

/// Causal / sliding-window / padded-key rules (visibleRange + keyKeep in attention.cpp).
bool structurallyVisible(uint qi, uint kj)
{
    const int p = pc.queryOffset + int(qi);
    const int j = int(kj);
    if (pc.causal != 0u && j > p)
        return false;
    if (pc.window > 0 && (j < p - pc.window + 1 || (pc.causal == 0u && j >= p + pc.window)))
        return false;
    return pc.hasKeyKeep == 0u || keyKeep[kj] != 0u;
}

/// Whether (h, qi, kj) is visible under every mask; if so, b is its additive bias (0 without one).
bool maskedBias(uint h, uint qi, uint kj, out float b)
{
    b = 0.0;
    if (!structurallyVisible(qi, kj))
        return false;
    const uint mi = qi * pc.nk + kj;
    if (pc.hasKeep != 0u && keepData[h * pc.keepHeadStride + mi] == 0.0)
        return false;
    if (pc.hasBias != 0u) {
        b = biasData[h * pc.biasHeadStride + mi];
        if (floatBitsToUint(b) == NEG_INF_BITS)
            return false;
    }
    return true;
}

// tanh from one exp of a non-positive argument: no overflow, full precision near 0 (as activation.comp).
float tanhStable(float u)
{
    const float e = exp(-2.0 * abs(u));
    return sign(u) * (1.0 - e) / (1.0 + e);
}

/// Offset of key (or value) row kj of the KV head that query head h reads.
uint kvRowBase(uint h, uint kj, uint width)
{
    return ((h / (pc.hq / pc.hkv)) * pc.kvRows + kj) * width;
}

/// Loads query rows firstRow .. firstRow + ROWS - 1 of head h (zeros past row1) into qBlock; all threads call it.
void loadQueryBlock(uint h, uint firstRow)
{
    for (uint e = gl_LocalInvocationID.x; e < ROWS * pc.d; e += WG) {
        const uint r = e / pc.d;
        qBlock[r][e % pc.d] = firstRow + r < pc.row1 ? qData[(h * pc.nq + firstRow + r) * pc.d + e % pc.d] : 0.0;
    }
    barrier();
}

/// The masked scores of key kj (< end) for every row of the block, from one read of the key row: visible[r] is false
/// where the key is masked (or the row is past row1), else s[r] = scale * (q . k) + bias. Returns whether any row
/// sees the key.
bool blockScores(uint h, uint firstRow, uint kj, uint end, out float s[ROWS], out bool visible[ROWS])
{
    bool any = false;
    for (uint r = 0; r < ROWS; ++r) {
        float b;
        visible[r] = kj < end && firstRow + r < pc.row1 && maskedBias(h, firstRow + r, kj, b);
        s[r] = b;
        any = any || visible[r];
    }
    if (!any)
        return false;
    const uint kBase = kvRowBase(h, kj, pc.d);
    float dot[ROWS];
    for (uint r = 0; r < ROWS; ++r)
        dot[r] = 0.0;
    for (uint c = 0; c < pc.d; ++c) {
        const float kc = kData[kBase + c];
        for (uint r = 0; r < ROWS; ++r)
            dot[r] += qBlock[r][c] * kc;
    }
    for (uint r = 0; r < ROWS; ++r) {
        const float scaled = pc.scale * dot[r];
        s[r] += pc.softcap > 0.0 ? pc.softcap * tanhStable(scaled / pc.softcap) : scaled;
    }
    return true;
}
