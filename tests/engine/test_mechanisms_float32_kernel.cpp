// SPDX-License-Identifier: MIT
// The ALiBi what-if runs on the engine's float32 attention kernel, as the exact head does: the same bits as
// multiHeadAttention called here on the head's q, k, v with the ALiBi bias. Before, it was a float64 score product and
// softmax; the two agree within float32 rounding (1e-6 on weights <= 1 here), not to the bit, so the EXPECT_EQs below
// fail on that code. (Unscaled stays float64: its float32 weights missed the NumPy reference's 1e-6 on stories260K.)
#include "attention/attention.h"
#include "mechanisms/attention_math.h"
#include "mechanisms/mechanism.h"
#include "mechanisms/position_tables.h"

#include <gtest/gtest.h>

namespace attn {
namespace {

Tensor tensorOf(const Mat& m)
{
    Tensor t({ 1, m.rows(), m.cols() });
    for (int64_t i = 0; i < m.rows(); ++i)
        for (int64_t j = 0; j < m.cols(); ++j)
            t.data()[i * m.cols() + j] = static_cast<float>(m(i, j));
    return t;
}

/// multiHeadAttention on the head with score scale `scale` and additive `bias` (empty: none).
AttentionResult engineAttention(const HeadInputs& in, float scale, const Mat& bias)
{
    AttentionOptions options;
    options.scale = scale;
    options.mask.causal = in.causal;
    const Tensor biasTensor = bias.size() ? tensorOf(bias) : Tensor();
    if (bias.size()) options.mask.bias = &biasTensor;
    return multiHeadAttention(tensorOf(in.q), tensorOf(in.k), tensorOf(in.v), options);
}

void expectSameBits(const MechanismResult& r, const AttentionResult& a, const HeadInputs& in, const Mat& float64Probs)
{
    const int64_t T = in.tokens();
    ASSERT_EQ(r.probs.rows(), T);
    ASSERT_EQ(r.probs.cols(), T);
    for (int64_t i = 0; i < T; ++i) {
        for (int64_t j = 0; j < T; ++j) {
            EXPECT_EQ(r.probs(i, j), static_cast<double>(a.probs.data()[i * T + j])) << i << "," << j;
            EXPECT_NEAR(r.probs(i, j), float64Probs(i, j), 1e-6) << i << "," << j;
        }
        for (int64_t c = 0; c < in.v.cols(); ++c)
            EXPECT_EQ(r.out(i, c), static_cast<double>(a.output.data()[i * in.v.cols() + c])) << i << "," << c;
    }
}

TEST(MechanismsFloat32Kernel, AlibiIsTheEnginesFloat32AttentionOfTheHead)
{
    HeadInputs in = syntheticHeadInputs(12, 8, 5);
    in.causal = true;
    in.numHeads = 4;
    in.head = 1;
    const KeepMask keep = modelKeepMask(in);

    const Mat alibi = alibiMatrix(in.tokens(), in.numHeads, in.head);
    const MechanismResult withAlibi = runMechanism(in, parseMechanism("alibi"));
    expectSameBits(withAlibi, engineAttention(in, static_cast<float>(in.scale), alibi), in,
        maskedSoftmax(in.q * in.k.transpose() * in.scale + alibi, keep));
    ASSERT_EQ(withAlibi.arrays.size(), 1u);
    EXPECT_EQ(withAlibi.arrays[0].name, "bias");
    EXPECT_EQ(withAlibi.arrays[0].values, alibi);
}

} // namespace
} // namespace attn
