// SPDX-License-Identifier: MIT
// rollout MODEL (--image FILE | --pixel-values FILE.npy) [--fusion mean|max|min] [--discard R] [--method rollout|flow]
// --out FILE.npy: how much each patch reaches the class token through all layers, as a [rows, cols] map.
#include "analysis/rollout.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/vision_input.h"
#include "core/error.h"
#include "core/npy.h"

#include <iostream>

namespace attn::cli {

int runRollout(const std::vector<std::string>& words)
{
    const Args args(words, {});
    args.allowOnly({ "image", "pixel-values", "fusion", "discard", "method", "out" });
    const auto model = loadVisionModel(args.positional(0, "MODEL"));
    const std::string out = args.require("out");
    const std::string method = args.get("method", "rollout");
    if (method != "rollout" && method != "flow") throw UsageError("--method must be rollout or flow");
    RolloutOptions options;
    options.fusion = parseHeadFusion(args.get("fusion", "mean"));
    options.discardRatio = args.getDouble("discard", 0.0);
    const Tensor pixels = pixelInput(args, *model);
    const StepResult r = model->classify(pixels, {});
    const PatchGrid grid = model->patchGrid(pixels.dim(1), pixels.dim(2));
    const int64_t prefix = model->prefixTokens(), T = prefix + grid.patches();
    // Row 0 of the joint attention (or the flow into token 0): the class token's share of every input token.
    Tensor classRow;
    if (method == "flow") {
        classRow = attentionFlow(r.attention, 0, options);
    } else {
        const Tensor joint = attentionRollout(r.attention, options);
        classRow = Tensor({ T }, std::vector<float>(joint.data(), joint.data() + T));
    }
    Tensor map({ grid.rows, grid.cols }, std::vector<float>(classRow.data() + prefix, classRow.data() + T));
    writeNpy(out, map);
    double prefixShare = 0;
    for (int64_t i = 0; i < prefix; ++i)
        prefixShare += classRow.data()[i];
    std::cout << "wrote " << out << " " << shapeToString(map.shape()) << " (" << method << "); the prefix token"
              << (prefix > 1 ? "s hold " : " holds ") << prefixShare << " of the class token's total of 1\n";
    return 0;
}

} // namespace attn::cli
