// SPDX-License-Identifier: MIT
// `caption MODEL (--image FILE | --pixel-values FILE.npy) [--max-new-tokens N] [--beam K] [--ids]`: generates a
// caption with an image-to-text model (greedy, or beam search with K > 1) and prints it; --ids adds the generated ids
// (space-separated, without the start token) on the last line.
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/vision_input.h"
#include "core/error.h"
#include "session/caption_run.h"

#include <iostream>

namespace attn::cli {

int runCaption(const std::vector<std::string>& words)
{
    const Args args(words, { "ids" });
    args.allowOnly({ "image", "pixel-values", "max-new-tokens", "beam", "ids" });
    const Captioner captioner = loadCaptioner(args.positional(0, "MODEL"));
    CaptionOptions options;
    options.beamWidth = args.getInt("beam", 1);
    options.maxNewTokens = args.getInt("max-new-tokens", 20);
    if (options.beamWidth < 1 || options.maxNewTokens < 1)
        throw UsageError("--beam and --max-new-tokens must be at least 1");
    options.strategy = options.beamWidth > 1 ? CaptionStrategy::Beam : CaptionStrategy::Greedy;
    EncoderInput input;
    input.pixels = pixelInput(args, captioner.model->imageEncoder());
    ForwardOptions encoderOptions;
    encoderOptions.wantAttention = false;
    CaptionRun run(captioner.model, captioner.model->encode(input, encoderOptions), options);
    while (run.step()) { }
    std::cout << captioner.text(run.ids()) << "\n";
    if (args.has("ids")) {
        const std::vector<int64_t> ids = run.ids();
        for (size_t i = 0; i < ids.size(); ++i)
            std::cout << (i ? " " : "") << ids[i];
        std::cout << "\n";
    }
    return 0;
}

} // namespace attn::cli
