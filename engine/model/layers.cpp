// SPDX-License-Identifier: MIT
#include "model/layers.h"

#include "backend/cpu_packed_matmul.h"
#include "core/blas.h"
#include "core/error.h"
#include "model/silu_avx2.h"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace attn {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMatrix>;
using MutMap = Eigen::Map<RowMatrix>;

void expectRank2(const Tensor& t, const char* what) {
    if (t.rank() != 2) throw Error(std::string(what) + " must be 2-D, got " + shapeToString(t.shape()));
}

} // namespace

Activation parseActivation(const std::string& name, const std::string& source) {
    if (name == "relu") return Activation::Relu;
    if (name == "gelu") return Activation::Gelu;
    if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast") return Activation::GeluTanh;
    if (name == "silu" || name == "swish") return Activation::Silu;
    throw Error(source, "activation \"" + name + "\" is not supported (relu, gelu, gelu_new, gelu_pytorch_tanh, silu)");
}

void applyActivation(Tensor& x, Activation activation) {
    float* p = x.data();
    const int64_t n = x.numel();
    switch (activation) {
    case Activation::Relu:
        for (int64_t i = 0; i < n; ++i)
            p[i] = p[i] > 0.0f ? p[i] : 0.0f;
        break;
    case Activation::Gelu:
        for (int64_t i = 0; i < n; ++i)
            p[i] = 0.5f * p[i] * (1.0f + std::erf(p[i] * 0.70710678118654752f));
        break;
    case Activation::GeluTanh: {
        // Eigen's vectorized tanh: scalar tanhf was the largest cost of a GPT-2 prefill outside the products.
        const float c = 0.79788456080286536f; // sqrt(2 / pi)
        Eigen::Map<Eigen::ArrayXf> a(p, n);
        a = 0.5f * a * (1.0f + (c * (a + 0.044715f * a.cube())).tanh());
        break;
    }
    case Activation::Silu:
        // Eight lanes where the CPU has AVX2: libm's expf, one call per entry, was 4 % of a stories260K decode step.
        if (siluAvx2(p, n)) break;
        for (int64_t i = 0; i < n; ++i)
            p[i] = p[i] / (1.0f + std::exp(-p[i]));
        break;
    }
}

Tensor linear(const Tensor& x, const Tensor& w, const Tensor* bias) {
    expectRank2(x, "linear input");
    expectRank2(w, "linear weight");
    // Both are 2-D: their shapes are read in place (dim() checks its index out of line, four calls per product).
    const int64_t n = x.shape()[0], in = x.shape()[1], out = w.shape()[0];
    if (w.shape()[1] != in)
        throw Error("linear: input " + shapeToString(x.shape()) + " does not fit weight " + shapeToString(w.shape()));
    if (bias && bias->numel() != out)
        throw Error("linear: bias " + shapeToString(bias->shape()) + " does not fit " + std::to_string(out) + " outputs");
    if (w.packed()) return packedLinear(x, *w.packed(), bias);
    Tensor y({ n, out });
    gemm(n, out, in, 1.0f, x.data(), w.data(), true, y.data());
    MutMap Y(y.data(), n, out);
    if (bias) {
        Y.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(bias->data(), out);
    }
    return y;
}

Tensor transposed(const Tensor& m) {
    expectRank2(m, "transpose input");
    Tensor t({ m.dim(1), m.dim(0) });
    MutMap(t.data(), m.dim(1), m.dim(0)) = ConstMap(m.data(), m.dim(0), m.dim(1)).transpose();
    return t;
}

void layerNormInPlace(Tensor& x, const Tensor& weight, const Tensor& bias, double eps) {
    const int64_t d = x.dim(-1), n = x.numel() / d;
    for (int64_t r = 0; r < n; ++r) {
        float* row = x.data() + r * d;
        double mean = 0.0;
        for (int64_t i = 0; i < d; ++i)
            mean += row[i];
        mean /= static_cast<double>(d);
        double var = 0.0;
        for (int64_t i = 0; i < d; ++i)
            var += (row[i] - mean) * (row[i] - mean);
        var /= static_cast<double>(d);
        const double inv = 1.0 / std::sqrt(var + eps);
        for (int64_t i = 0; i < d; ++i)
            row[i] = static_cast<float>((row[i] - mean) * inv) * weight.data()[i] + bias.data()[i];
    }
}

Tensor rmsNorm(const Tensor& x, const Tensor& weight, double eps) {
    const int64_t d = x.dim(-1), n = x.numel() / d;
    Tensor y(x.shape());
    for (int64_t r = 0; r < n; ++r) {
        const float* in = x.data() + r * d;
        float* out = y.data() + r * d;
        double ss = 0.0;
        for (int64_t i = 0; i < d; ++i)
            ss += static_cast<double>(in[i]) * in[i];
        const float inv = static_cast<float>(1.0 / std::sqrt(ss / static_cast<double>(d) + eps));
        for (int64_t i = 0; i < d; ++i)
            out[i] = weight.data()[i] * (in[i] * inv);
    }
    return y;
}

void addInPlace(Tensor& x, const Tensor& y) {
    if (x.numel() != y.numel()) throw Error("add: " + shapeToString(x.shape()) + " vs " + shapeToString(y.shape()));
    Eigen::Map<Eigen::ArrayXf>(x.data(), x.numel()) += Eigen::Map<const Eigen::ArrayXf>(y.data(), y.numel());
}

void clampInPlace(Tensor& x, float limit) {
    for (float& v : x.storage())
        v = std::clamp(v, -limit, limit);
}

void multiplyInPlace(Tensor& a, const Tensor& b) {
    if (a.numel() != b.numel())
        throw Error("multiply: " + shapeToString(a.shape()) + " vs " + shapeToString(b.shape()));
    Eigen::Map<Eigen::ArrayXf>(a.data(), a.numel()) *= Eigen::Map<const Eigen::ArrayXf>(b.data(), b.numel());
}

Tensor gatherRows(const Tensor& table, const std::vector<int64_t>& ids, const std::string& what) {
    const int64_t rows = table.dim(0), d = table.dim(1);
    for (const int64_t id : ids)
        if (id < 0 || id >= rows)
            throw Error(what + " id " + std::to_string(id) + " is out of range [0, " + std::to_string(rows) + ")");
    if (table.packed()) return packedRows(*table.packed(), ids);
    Tensor out({ static_cast<int64_t>(ids.size()), d });
    for (size_t i = 0; i < ids.size(); ++i) {
        std::memcpy(out.data() + static_cast<int64_t>(i) * d, table.data() + ids[i] * d, sizeof(float) * d);
    }
    return out;
}

Tensor splitHeads(const Tensor& x, int64_t heads, int64_t dim, int64_t offset) {
    const int64_t n = x.dim(0), cols = x.dim(1);
    if (offset + heads * dim > cols)
        throw Error("splitHeads: " + std::to_string(heads) + " heads of " + std::to_string(dim) + " at column "
            + std::to_string(offset) + " exceed " + shapeToString(x.shape()));
    Tensor out({ heads, n, dim });
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t r = 0; r < n; ++r)
            std::memcpy(out.data() + (h * n + r) * dim, x.data() + r * cols + offset + h * dim, sizeof(float) * dim);
    return out;
}

Tensor mergeHeads(const Tensor& x) {
    const int64_t heads = x.dim(0), n = x.dim(1), dim = x.dim(2);
    Tensor out({ n, heads * dim });
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t r = 0; r < n; ++r)
            std::memcpy(out.data() + r * heads * dim + h * dim, x.data() + (h * n + r) * dim, sizeof(float) * dim);
    return out;
}

} // namespace attn
