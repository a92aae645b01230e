// SPDX-License-Identifier: MIT
// Image files as --image and the Vision and Caption tabs read them: Qt's decoders (the first byte picks the file
// suffix, so each format's reader is reached by name as well as by content), the conversion to the engine's pixel
// buffer and a ViT's preprocessing (resize, rescale, normalize).
#include "fuzz_target.h"
#include "vision/image_conversion.h"
#include "vision/preprocess.h"

#include <array>
#include <string>

AS_FUZZ_TARGET(image)
{
    if (size == 0) return;
    static const std::array<const char*, 8> kSuffixes { "png", "jpg", "bmp", "gif", "ppm", "pgm", "xpm", "ico" };
    const std::string path
        = attn::fuzz::writeScratch(std::string("input.") + kSuffixes[data[0] % kSuffixes.size()], data + 1, size - 1);
    const attn::ImageBuffer pixels
        = attn::ui::imageBufferFromQImage(attn::ui::loadImageFile(QString::fromStdString(path)));
    pixels.validate(path);
    for (const int64_t channels : { 1, 3 }) {
        const attn::ImagePreprocessConfig config = attn::defaultPreprocessConfig(channels, 16);
        const attn::Tensor t = attn::preprocessImage(pixels, config);
        if (t.numel() != channels * 16 * 16) __builtin_trap();
    }
}
