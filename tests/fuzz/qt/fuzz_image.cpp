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
    // Resizing is linear in the pixels: a 257-byte JPEG of 493 x 32826 pixels (a regression input) takes 1.8 s in a
    // release build but over libFuzzer's 10 s under ASan and coverage. Large images are decoded and converted above;
    // only those up to 4 Mpx are also preprocessed, so that each run stays short.
    if (pixels.width * pixels.height > (int64_t(4) << 20)) return;
    for (const int64_t channels : { 1, 3 }) {
        const attn::ImagePreprocessConfig config = attn::defaultPreprocessConfig(channels, 16);
        const attn::Tensor t = attn::preprocessImage(pixels, config);
        if (t.numel() != channels * 16 * 16) __builtin_trap();
    }
}
