// SPDX-License-Identifier: MIT
#pragma once
// An 8-bit image as decoders hand it over (the engine never decodes files itself).
#include <cstdint>
#include <string>
#include <vector>

namespace attn {

/// Interleaved 8-bit pixels, rows top to bottom: channels 1 = gray, 2 = gray + alpha, 3 = RGB, 4 = RGBA.
struct ImageBuffer {
    int64_t width = 0;
    int64_t height = 0;
    int64_t channels = 0;
    std::vector<uint8_t> pixels; ///< height * width * channels bytes

    uint8_t at(int64_t y, int64_t x, int64_t c) const
    {
        return pixels[static_cast<size_t>((y * width + x) * channels + c)];
    }
    /// Throws Error naming `what` if the sizes are inconsistent or the channel count is not 1..4.
    void validate(const std::string& what) const;
};

/// The image with `channels` (1 or 3) colour channels, the way PIL's convert("L") / convert("RGB") does it:
/// alpha is dropped (not composited), gray is replicated to RGB, RGB becomes ITU-R 601 luma with PIL's rounding.
ImageBuffer convertChannels(const ImageBuffer& image, int64_t channels);

} // namespace attn
