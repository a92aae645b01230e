// SPDX-License-Identifier: MIT
#include "cli/vision_input.h"

#include "cli/image_file.h"
#include "core/error.h"
#include "core/npy.h"
#include "model/model_loader.h"

namespace attn::cli {

std::shared_ptr<const VisionModel> loadVisionModel(const std::string& path)
{
    std::shared_ptr<const Model> model = loadModel(path);
    auto vision = std::dynamic_pointer_cast<const VisionModel>(model);
    if (!vision)
        throw Error(
            path, "is a " + modelKindName(model->kind()) + " model; this command needs an image model (vit, deit)");
    return vision;
}

Tensor pixelInput(const Args& args, const VisionModel& model)
{
    const auto image = args.get("image");
    const auto pixels = args.get("pixel-values");
    if (image.has_value() == pixels.has_value())
        throw UsageError("give exactly one of --image FILE or --pixel-values FILE.npy");
    if (image) return model.preprocess(readImageFile(*image));
    Tensor t = readNpy(*pixels);
    if (t.rank() == 4 && t.dim(0) == 1) {
        const Shape chw { t.dim(1), t.dim(2), t.dim(3) };
        t = std::move(t).reshaped(chw);
    }
    if (t.rank() != 3)
        throw Error(*pixels, "pixel values must be [C, H, W] or [1, C, H, W], got " + shapeToString(t.shape()));
    // The model checks these too, but without knowing the file: say here which input does not fit.
    const ModelConfig& c = model.config();
    if (t.dim(0) != c.numChannels || t.dim(1) < c.patchSize || t.dim(2) < c.patchSize)
        throw Error(*pixels,
            "pixel values " + shapeToString(t.shape()) + " do not fit this model: it needs "
                + std::to_string(c.numChannels) + " channels and at least one " + std::to_string(c.patchSize) + "x"
                + std::to_string(c.patchSize) + " patch");
    return t;
}

} // namespace attn::cli
