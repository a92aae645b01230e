// SPDX-License-Identifier: MIT
// ViT / DeiT: patch convolution, prefix tokens ([CLS], DeiT's distillation token), learned positions, pre-LN
// encoder blocks, final layernorm, classifier(s) on the prefix tokens.
#include "model/vit_model.h"

#include "attention/attention.h"
#include "backend/backend.h"
#include "core/error.h"
#include "intervention/intervention.h"
#include "model/layers.h"
#include "model/weight_reader.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <tuple>

namespace attn {

namespace {

const Tensor* biasOrNull(const Tensor& b)
{
    return b.empty() ? nullptr : &b;
}

/// Rows [begin, end) of a [n, d] tensor.
Tensor rowSlice(const Tensor& x, int64_t begin, int64_t end)
{
    const int64_t d = x.dim(1);
    Tensor out({ end - begin, d });
    std::memcpy(out.data(), x.data() + begin * d, sizeof(float) * static_cast<size_t>((end - begin) * d));
    return out;
}

/// torch's cubic convolution weights (A = -0.75) for fractional offset t.
std::array<float, 4> cubicWeights(float t)
{
    constexpr float A = -0.75f;
    auto near = [](float x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
    auto far = [](float x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
    return { far(t + 1.0f), near(t), near(1.0f - t), far(2.0f - t) };
}

/// Source taps and weights along one axis, as torch's upsample_bicubic2d computes them.
struct CubicAxis {
    std::vector<std::array<int64_t, 4>> taps;
    std::vector<std::array<float, 4>> weights;
};

CubicAxis cubicAxis(int64_t inSize, int64_t outSize, double scaleFactor)
{
    const float scale = static_cast<float>(1.0 / scaleFactor);
    CubicAxis a;
    for (int64_t o = 0; o < outSize; ++o) {
        const float real = scale * (static_cast<float>(o) + 0.5f) - 0.5f;
        const int64_t index = std::min(static_cast<int64_t>(std::floor(real)), inSize - 1);
        const float t = std::min(std::max(real - static_cast<float>(index), 0.0f), 1.0f);
        std::array<int64_t, 4> taps {};
        for (int64_t j = 0; j < 4; ++j)
            taps[static_cast<size_t>(j)] = std::clamp<int64_t>(index - 1 + j, 0, inSize - 1);
        a.taps.push_back(taps);
        a.weights.push_back(cubicWeights(t));
    }
    return a;
}

std::string prefixOf(const WeightReader& r, const std::string& family)
{
    return r.has(family + ".embeddings.cls_token") ? family + "." : "";
}

} // namespace

VitModel::VitModel(ModelConfig config, ImagePreprocessConfig preprocess, VitWeights weights)
    : VisionModel(std::move(config), std::move(preprocess))
    , m_w(std::move(weights))
    , m_activation(parseActivation(m_config.activation, m_config.source))
{
}

StepResult VitModel::classify(const Tensor& pixels, const ForwardOptions& options) const
{
    return run(pixels, options, nullptr);
}

StepResult VitModel::encodeImage(const Tensor& pixels, const ForwardOptions& options, Tensor* lastHidden) const
{
    return run(pixels, options, lastHidden);
}

StepResult VitModel::run(const Tensor& pixels, const ForwardOptions& options, Tensor* lastHidden) const
{
    const auto start = std::chrono::steady_clock::now();
    const ModelConfig& c = m_config;
    if (pixels.rank() != 3 || pixels.dim(0) != c.numChannels)
        throw Error("pixel values " + shapeToString(pixels.shape()) + " do not fit the model's input ["
            + std::to_string(c.numChannels) + ", H, W]");
    const PatchGrid grid = patchGrid(pixels.dim(1), pixels.dim(2));
    const Tensor embedded = embed(pixels, grid);
    AttentionOptions attn;
    StepResult result;
    Tensor x;
    runStream(options.backend, m_weightsLifetime, [&](Stream& s) {
        result = startResult({}, 0, options); // a rerun after a device failure starts afresh
        s.cancelInsideProducts(cancelPoll(options));
        const Value xs = s.input(embedded);
        if (options.wantHiddenStates) s.read(xs, &result.hiddenStates.emplace_back());
        for (const VitLayer& w : m_w.layers) {
            const size_t l = static_cast<size_t>(&w - m_w.layers.data());
            const Value h = s.layerNorm(xs, w.ln1w, w.ln1b, c.normEps);
            const Value q = s.splitHeads(s.linear(h, w.qW, biasOrNull(w.qB)), c.numHeads, c.headDim, 0);
            const Value k = s.splitHeads(s.linear(h, w.kW, biasOrNull(w.kB)), c.numHeads, c.headDim, 0);
            const Value v = s.splitHeads(s.linear(h, w.vW, biasOrNull(w.vB)), c.numHeads, c.headDim, 0);
            readQueryKeys(s, options, result, q, k, v);
            const Value heads = s.attention(q, k, v, withHeadScale(attn, options, static_cast<int64_t>(l)),
                options.wantAttention ? &result.attention[l] : nullptr);
            s.add(xs, s.linear(heads, w.oW, &w.oB));
            const Value inter = s.linear(s.layerNorm(xs, w.ln2w, w.ln2b, c.normEps), w.iW, &w.iB);
            s.activate(inter, m_activation);
            s.add(xs, s.linear(inter, w.outW, &w.outB));
            if (options.wantHiddenStates) s.read(xs, &result.hiddenStates.emplace_back());
            s.flush();
            reportLayerDone(options, static_cast<int64_t>(l) + 1, c.numLayers);
        }
        if (lastHidden) s.take(s.layerNorm(xs, m_w.lnW, m_w.lnB, c.normEps), lastHidden);
        if (!lastHidden && !m_w.heads.empty()) s.take(xs, &x);
        s.flush();
    });
    if (!lastHidden && !m_w.heads.empty()) {
        // Only the prefix rows feed the classifiers; the final layernorm is per row, so normalizing just them
        // gives HF's numbers.
        Tensor pre = rowSlice(x, 0, prefixTokens());
        layerNormInPlace(pre, m_w.lnW, m_w.lnB, c.normEps);
        for (const VitHead& head : m_w.heads) {
            Tensor l = linear(rowSlice(pre, head.token, head.token + 1), head.w, &head.b);
            if (result.logits.empty())
                result.logits = std::move(l);
            else
                addInPlace(result.logits, l);
        }
        const float inv = 1.0f / static_cast<float>(m_w.heads.size());
        if (m_w.heads.size() > 1)
            for (float& v : result.logits.storage())
                v *= inv;
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

Tensor VitModel::embed(const Tensor& pixels, const PatchGrid& grid) const
{
    const int64_t C = m_config.numChannels, P = m_config.patchSize, W = pixels.dim(2), H = pixels.dim(1);
    Tensor cols({ grid.patches(), C * P * P });
    for (int64_t r = 0; r < grid.rows; ++r)
        for (int64_t cc = 0; cc < grid.cols; ++cc) {
            float* dst = cols.data() + (r * grid.cols + cc) * C * P * P;
            for (int64_t ch = 0; ch < C; ++ch)
                for (int64_t i = 0; i < P; ++i)
                    std::memcpy(dst + (ch * P + i) * P, pixels.data() + (ch * H + r * P + i) * W + cc * P,
                        sizeof(float) * static_cast<size_t>(P));
        }
    const Tensor patches = linear(cols, m_w.patchW, &m_w.patchB);
    const int64_t pre = prefixTokens(), D = m_config.hiddenSize, T = pre + grid.patches();
    Tensor x({ T, D });
    std::memcpy(x.data(), m_w.prefix.data(), sizeof(float) * static_cast<size_t>(pre * D));
    std::memcpy(x.data() + pre * D, patches.data(), sizeof(float) * static_cast<size_t>(patches.numel()));
    addInPlace(x, positionsFor(grid, H == W));
    return x;
}

Tensor VitModel::positionsFor(const PatchGrid& grid, bool squareImage) const
{
    const int64_t pre = prefixTokens(), stored = m_w.positions.dim(0) - pre;
    // HF's test: the stored table is used as is only for the same patch count and a square image.
    if (grid.patches() == stored && squareImage) return m_w.positions;
    const Tensor patchPos = interpolatePatchPositions(rowSlice(m_w.positions, pre, pre + stored), grid.rows, grid.cols);
    Tensor out({ pre + grid.patches(), m_config.hiddenSize });
    std::memcpy(out.data(), m_w.positions.data(), sizeof(float) * static_cast<size_t>(pre * m_config.hiddenSize));
    std::memcpy(out.data() + pre * m_config.hiddenSize, patchPos.data(), sizeof(float) * patchPos.storage().size());
    return out;
}

Tensor interpolatePatchPositions(const Tensor& positions, int64_t rows, int64_t cols)
{
    const int64_t n = positions.dim(0), D = positions.dim(1);
    const auto side = static_cast<int64_t>(std::sqrt(static_cast<double>(n)));
    if (side * side != n)
        throw Error("position embeddings: " + std::to_string(n) + " patch positions do not form a square grid, so "
            + "they cannot be interpolated to " + std::to_string(rows) + "x" + std::to_string(cols) + " patches");
    const double sh = (static_cast<double>(rows) + 0.1) / std::sqrt(static_cast<double>(n));
    const double sw = (static_cast<double>(cols) + 0.1) / std::sqrt(static_cast<double>(n));
    if (static_cast<int64_t>(std::floor(side * sh)) != rows || static_cast<int64_t>(std::floor(side * sw)) != cols)
        throw Error("position interpolation to " + std::to_string(rows) + "x" + std::to_string(cols) + " failed");
    const CubicAxis ay = cubicAxis(side, rows, sh), ax = cubicAxis(side, cols, sw);
    Tensor out({ rows * cols, D });
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
            float* dst = out.data() + (r * cols + c) * D;
            for (size_t i = 0; i < 4; ++i) {
                for (size_t j = 0; j < 4; ++j) {
                    const float w = ay.weights[r][i] * ax.weights[c][j];
                    const float* src = positions.data() + (ay.taps[r][i] * side + ax.taps[c][j]) * D;
                    for (int64_t d = 0; d < D; ++d)
                        dst[d] += w * src[d];
                }
            }
        }
    return out;
}

ImagePreprocessConfig folderPreprocessConfig(const std::string& folder, const ModelConfig& c)
{
    const std::filesystem::path ppc = std::filesystem::path(folder) / "preprocessor_config.json";
    return std::filesystem::exists(ppc) ? parsePreprocessConfig(ppc.string(), c.numChannels, c.imageSize)
                                        : defaultPreprocessConfig(c.numChannels, c.imageSize);
}

std::shared_ptr<VitModel> loadVit(const ModelSource& source)
{
    WeightReader r(source.weightsPath);
    const std::string family = source.config.modelType == "deit" ? "deit" : "vit";
    auto model = loadVit(source.config, r, prefixOf(r, family), folderPreprocessConfig(source.folder, source.config));
    r.expectAllUsed();
    return model;
}

std::shared_ptr<VitModel> loadVit(
    const ModelConfig& c, WeightReader& r, const std::string& pre, ImagePreprocessConfig prep)
{
    const bool deit = c.modelType == "deit";
    const int64_t D = c.hiddenSize, I = c.intermediateSize, C = c.numChannels, P = c.patchSize;
    const int64_t side = c.imageSize / P;
    const std::string e = pre + "embeddings.";
    VitWeights w;
    w.patchW = r.takeFlattenedMatrix(e + "patch_embeddings.projection.weight", { D, C, P, P });
    w.patchB = r.take(e + "patch_embeddings.projection.bias", { D });
    const int64_t prefixTokens = deit ? 2 : 1;
    Tensor cls = r.take(e + "cls_token", { 1, 1, D });
    w.prefix = Tensor({ prefixTokens, D });
    std::memcpy(w.prefix.data(), cls.data(), sizeof(float) * static_cast<size_t>(D));
    if (deit) {
        const Tensor dist = r.take(e + "distillation_token", { 1, 1, D });
        std::memcpy(w.prefix.data() + D, dist.data(), sizeof(float) * static_cast<size_t>(D));
    }
    w.positions = r.take(e + "position_embeddings", { 1, prefixTokens + side * side, D })
                      .reshaped({ prefixTokens + side * side, D });
    r.skip(e + "mask_token"); // ViTForMaskedImageModeling / use_mask_token: unused for classification
    for (int64_t l = 0; l < c.numLayers; ++l) {
        const std::string p = pre + "encoder.layer." + std::to_string(l) + ".";
        const std::string a = p + "attention.attention.";
        VitLayer L;
        L.ln1w = r.take(p + "layernorm_before.weight", { D });
        L.ln1b = r.take(p + "layernorm_before.bias", { D });
        L.qW = r.takeMatrix(a + "query.weight", { D, D });
        L.kW = r.takeMatrix(a + "key.weight", { D, D });
        L.vW = r.takeMatrix(a + "value.weight", { D, D });
        if (c.attentionBias) {
            L.qB = r.take(a + "query.bias", { D });
            L.kB = r.take(a + "key.bias", { D });
            L.vB = r.take(a + "value.bias", { D });
        }
        std::tie(L.oW, L.oB) = r.takeLinear(p + "attention.output.dense", D, D);
        L.ln2w = r.take(p + "layernorm_after.weight", { D });
        L.ln2b = r.take(p + "layernorm_after.bias", { D });
        std::tie(L.iW, L.iB) = r.takeLinear(p + "intermediate.dense", I, D);
        std::tie(L.outW, L.outB) = r.takeLinear(p + "output.dense", D, I);
        w.layers.push_back(std::move(L));
    }
    w.lnW = r.take(pre + "layernorm.weight", { D });
    w.lnB = r.take(pre + "layernorm.bias", { D });
    r.skip(pre + "pooler.dense.weight"); // ViTModel's pooler: not part of classification or attention
    r.skip(pre + "pooler.dense.bias");

    const auto labels = static_cast<int64_t>(c.labels.size());
    auto head = [&](const std::string& name, int64_t token) {
        if (!r.has(name + ".weight")) return false;
        if (labels == 0) throw Error(c.source, "the weights hold a classifier (" + name + ") but id2label is missing");
        const auto [weight, bias] = r.takeLinear(name, labels, D);
        w.heads.push_back({ weight, bias, token });
        return true;
    };
    // DeiTForImageClassificationWithTeacher averages its two heads; the plain classes have one on [CLS].
    if (head("cls_classifier", 0) && !head("distillation_classifier", 1))
        throw Error(r.path(), "cls_classifier without distillation_classifier");
    if (w.heads.empty()) head("classifier", 0);
    return std::make_shared<VitModel>(c, std::move(prep), std::move(w));
}

} // namespace attn
