// SPDX-License-Identifier: MIT
#include "mechanisms/vision_head_inputs.h"

#include "model/vision_model.h"

namespace attn {

std::vector<HeadInputs> VisionHeads::layer(int64_t layer) const
{
    std::vector<HeadInputs> heads = encoderHeadInputs(pass, config, layer, origin);
    for (HeadInputs& head : heads) {
        head.gridRows = gridRows;
        head.gridCols = gridCols;
    }
    return heads;
}

VisionHeads visionHeads(const VisionModel& model, const Tensor& pixels)
{
    ForwardOptions options;
    options.wantQueryKeys = true;
    VisionHeads v;
    v.pass = model.classify(pixels, options);
    v.config = model.config();
    v.origin = model.description();
    const PatchGrid grid = model.patchGrid(pixels.dim(1), pixels.dim(2));
    v.gridRows = grid.rows;
    v.gridCols = grid.cols;
    v.tokenNames = model.tokenNames(pixels.dim(1), pixels.dim(2));
    return v;
}

} // namespace attn
