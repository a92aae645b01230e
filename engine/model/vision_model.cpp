// SPDX-License-Identifier: MIT
#include "model/vision_model.h"

#include "core/error.h"

namespace attn {

VisionModel::VisionModel(ModelConfig config, ImagePreprocessConfig preprocess)
    : Model(std::move(config))
    , m_preprocess(std::move(preprocess))
{
}

PatchGrid VisionModel::patchGrid(int64_t height, int64_t width) const
{
    const int64_t p = m_config.patchSize;
    if (height < p || width < p)
        throw Error("image " + std::to_string(width) + "x" + std::to_string(height) + " is smaller than one "
            + std::to_string(p) + "x" + std::to_string(p) + " patch");
    return { height / p, width / p };
}

std::vector<std::string> VisionModel::tokenNames(int64_t height, int64_t width) const
{
    std::vector<std::string> names { "[CLS]" };
    if (prefixTokens() > 1) names.push_back("[DIST]");
    const PatchGrid g = patchGrid(height, width);
    for (int64_t r = 0; r < g.rows; ++r)
        for (int64_t c = 0; c < g.cols; ++c)
            names.push_back("patch " + std::to_string(r) + "," + std::to_string(c));
    return names;
}

Tensor VisionModel::preprocess(const ImageBuffer& image) const
{
    return preprocessImage(image, m_preprocess);
}

std::string VisionModel::label(int64_t i) const
{
    if (i >= 0 && i < numLabels() && !m_config.labels[static_cast<size_t>(i)].empty())
        return m_config.labels[static_cast<size_t>(i)];
    return "LABEL_" + std::to_string(i);
}

} // namespace attn
