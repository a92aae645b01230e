// SPDX-License-Identifier: MIT
// RoPE and matmul kernels against the CPU backend: max abs error <= 1e-5.
#include "vulkan_test_support.h"

#include "backend/cpu_backend.h"
#include "core/error.h"

#include <cmath>

namespace attn::test {
namespace {

class VulkanOps : public VulkanTest {
protected:
    CpuBackend m_cpu;
};

TEST_F(VulkanOps, RopeBothStylesPartialAndOffset)
{
    struct RopeCase {
        int64_t t, d, rotary, offset;
    };
    for (const RopeStyle style : { RopeStyle::RotateHalf, RopeStyle::Interleaved })
        for (const RopeCase c : { RopeCase { 1, 16, 16, 0 }, RopeCase { 7, 64, 64, 5 }, RopeCase { 129, 80, 32, 0 },
                 RopeCase { 64, 128, 64, 999 }, RopeCase { 1000, 128, 128, 1000 } }) {
            SCOPED_TRACE("style " + std::to_string(static_cast<int>(style)) + " t " + std::to_string(c.t) + " d "
                + std::to_string(c.d) + " rotary " + std::to_string(c.rotary) + " offset " + std::to_string(c.offset));
            const Tensor x = randomTensor({ 8, c.t, c.d }, static_cast<uint32_t>(c.t + c.d));
            Tensor expected = x, actual = x;
            m_cpu.rope(expected, c.offset, style, 10000.0, c.rotary);
            vk().rope(actual, c.offset, style, 10000.0, c.rotary);
            EXPECT_LE(maxAbsDiff(actual, expected), kParityTolerance);
            if (c.offset + c.t > 1) {
                EXPECT_GT(maxAbsDiff(actual, x), 1e-3); // it really rotated (position 0 is the identity)
            }
        }
}

TEST_F(VulkanOps, RopeRejectsBadInput)
{
    Tensor x = randomTensor({ 2, 3, 8 }, 1);
    EXPECT_THROW(vk().rope(x, 0, RopeStyle::RotateHalf, 10000.0, 7), Error);
    EXPECT_THROW(vk().rope(x, 0, RopeStyle::RotateHalf, 10000.0, 10), Error);
}

TEST_F(VulkanOps, MatmulWithAndWithoutBias)
{
    struct MatmulCase {
        Shape x;
        int64_t out;
        bool bias;
    };
    for (const MatmulCase& c : { MatmulCase { { 1, 64 }, 128, false }, MatmulCase { { 7, 80 }, 129, true },
             MatmulCase { { 2, 129, 128 }, 1000, true }, MatmulCase { { 1000, 256 }, 64, false },
             MatmulCase { { 33, 17 }, 5, true } }) {
        const int64_t in = c.x.back();
        SCOPED_TRACE(shapeToString(c.x) + " x [" + std::to_string(c.out) + ", " + std::to_string(in) + "]");
        const Tensor x = randomTensor(c.x, static_cast<uint32_t>(in));
        // Weights scaled like a trained Linear layer (variance 1/in) so outputs stay O(1).
        const Tensor w = randomTensor({ c.out, in }, static_cast<uint32_t>(in + 1), 1.0f / std::sqrt(float(in)));
        const Tensor b = randomTensor({ c.out }, 5);
        const Tensor* bias = c.bias ? &b : nullptr;
        const Tensor expected = m_cpu.matmul(x, w, bias);
        EXPECT_LE(maxAbsDiff(vk().matmul(x, w, bias), expected), kParityTolerance);
    }
    EXPECT_THROW(vk().matmul(randomTensor({ 2, 3 }, 1), randomTensor({ 4, 5 }, 2), nullptr), Error);
}

} // namespace
} // namespace attn::test
