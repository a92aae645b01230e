// SPDX-License-Identifier: MIT
#pragma once
// The reference backend: every op runs on the CPU attention core (engine/attention) and Eigen.
#include "backend/backend.h"

namespace attn {

class CpuBackend final : public Backend {
public:
    std::string name() const override { return "cpu"; }
    DeviceInfo device() const override;
    bool supportsOp(Op) const override { return true; }

    AttentionResult attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& options) override;
    Tensor attentionProbabilities(const Tensor& q, const Tensor& k, const AttentionOptions& options) override;
    Tensor probabilityTile(const Tensor& q, const Tensor& k, const TileRange& range,
        const AttentionOptions& options) override;
    void rope(Tensor& x, int64_t positionOffset, RopeStyle style, double theta, int64_t rotaryDims) override;
    Tensor matmul(const Tensor& x, const Tensor& w, const Tensor* bias) override;
};

} // namespace attn
