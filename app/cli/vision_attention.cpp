// SPDX-License-Identifier: MIT
// The vision branch of `attention`: MODEL (--image FILE | --pixel-values FILE.npy) --out DIR [--backend B]
// writes attn.L{l}.npy [heads, T, T], logits.npy [num_labels] and pixel_values.npy [C, H, W] (the model input).
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/model_args.h"
#include "cli/vision_input.h"
#include "core/error.h"
#include "core/npy.h"

#include <filesystem>
#include <iostream>

namespace attn::cli {

int runVisionAttention(const std::vector<std::string>& words)
{
    const Args args(words, {});
    args.allowOnly({ "image", "pixel-values", "out", "backend", "head-mask" });
    const auto model = loadVisionModel(args.positional(0, "MODEL"));
    const std::filesystem::path out = args.require("out");
    const Tensor pixels = pixelInput(args, *model);
    const std::optional<Intervention> headMask = headMaskOption(args, model->config());
    ForwardOptions options;
    options.backend = modelBackend(args);
    options.intervention = headMask ? &*headMask : nullptr;
    const StepResult r = model->classify(pixels, options);
    std::filesystem::create_directories(out);
    for (size_t l = 0; l < r.attention.size(); ++l)
        writeNpy((out / ("attn.L" + std::to_string(l) + ".npy")).string(), r.attention[l]);
    if (!r.logits.empty()) writeNpy((out / "logits.npy").string(), r.logits.reshaped({ r.logits.numel() }));
    writeNpy((out / "pixel_values.npy").string(), pixels);
    std::cout << "wrote " << r.attention.size() << " attention layers, logits and pixel values to " << out.string()
              << "\n";
    return 0;
}

} // namespace attn::cli
