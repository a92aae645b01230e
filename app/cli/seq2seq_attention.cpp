// SPDX-License-Identifier: MIT
// The encoder-decoder branch of `attention`: MODEL (--tokens SRC_IDS | --features FILE.npy | --image FILE |
// --pixel-values FILE.npy) [--decoder-tokens TGT_IDS] --out DIR [--backend B] writes enc_attn.L{l}.npy [heads, S, S],
// dec_attn.L{l}.npy [heads, T, T], cross.L{l}.npy [heads, T, S] and logits.npy [T, V]. Without --decoder-tokens the
// decoder sees its start token. Image-to-text models take the image (S = [CLS] + patches), the others tokens or
// features. --head-mask FILE.npy [encoder + 2 x decoder layers, heads] (Seq2SeqHeadRows: encoder, decoder and
// cross-attention rows; an image-to-text model's encoder rows are its vision encoder's layers) runs the model with HF
// head_mask semantics.
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/model_args.h"
#include "cli/vision_input.h"
#include "core/error.h"
#include "core/npy.h"
#include "model/model_loader.h"
#include "model/seq2seq_model.h"
#include "model/vision_encoder_decoder.h"

#include <filesystem>
#include <iostream>

namespace attn::cli {

int runSeq2SeqAttention(const std::vector<std::string>& words)
{
    const Args args(words, {});
    args.allowOnly({ "tokens", "features", "image", "pixel-values", "decoder-tokens", "out", "backend", "head-mask" });
    const std::string path = args.positional(0, "MODEL");
    const auto model = std::dynamic_pointer_cast<const EncoderDecoderModel>(loadModel(path));
    if (!model) throw Error(path, "not an encoder-decoder model");
    const std::filesystem::path out = args.require("out");
    EncoderInput input;
    if (const auto captioner = std::dynamic_pointer_cast<const VisionEncoderDecoderModel>(model)) {
        if (args.has("tokens") || args.has("features"))
            throw UsageError("an image-to-text model takes --image FILE or --pixel-values FILE.npy");
        input.pixels = pixelInput(args, captioner->imageEncoder());
    } else {
        if (args.has("image") || args.has("pixel-values"))
            throw UsageError("--image / --pixel-values need an image-to-text model");
        input.tokens = args.getIds("tokens");
        if (const auto features = args.get("features")) {
            input.features = readNpy(*features);
            // The encoder checks these too, but without knowing the file: say here which input does not fit.
            const ModelConfig& c = model->config();
            const Tensor& f = input.features;
            if (f.rank() != 2 || f.dim(0) != c.numMelBins || f.dim(1) < 1 || f.dim(1) > 2 * c.maxPositions)
                throw Error(*features,
                    "log-mel features " + shapeToString(f.shape()) + " do not fit this model: it needs ["
                        + std::to_string(c.numMelBins) + ", frames] with 1 to " + std::to_string(2 * c.maxPositions)
                        + " frames");
        }
        if (input.tokens.empty() == input.features.empty())
            throw UsageError("give the source as exactly one of --tokens SRC_IDS or --features FILE.npy");
    }
    std::vector<int64_t> target = args.getIds("decoder-tokens");
    if (target.empty()) target = { model->decoderStartToken() };

    const std::optional<Intervention> headMask = headMaskOption(args, model->config());
    ForwardOptions options;
    options.backend = modelBackend(args);
    options.intervention = headMask ? &*headMask : nullptr;
    const auto encoding = model->encode(input, options);
    KvCache cache = model->newDecoderCache();
    const Seq2SeqStepResult r = model->decode(*encoding, cache, target, options);

    std::filesystem::create_directories(out);
    auto write = [&](const std::string& stem, const std::vector<Tensor>& layers) {
        for (size_t l = 0; l < layers.size(); ++l)
            writeNpy((out / (stem + ".L" + std::to_string(l) + ".npy")).string(), layers[l]);
    };
    write("enc_attn", encoding->attention);
    write("dec_attn", r.attention);
    write("cross", r.crossAttention);
    writeNpy((out / "logits.npy").string(), r.logits);
    std::cout << "wrote " << encoding->attention.size() << " encoder, " << r.attention.size() << " decoder and "
              << r.crossAttention.size() << " cross-attention layers and logits [" << r.logits.dim(0) << ", "
              << r.logits.dim(1) << "] to " << out.string() << "\n";
    return 0;
}

} // namespace attn::cli
