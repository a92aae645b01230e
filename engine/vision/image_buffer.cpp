// SPDX-License-Identifier: MIT
#include "vision/image_buffer.h"

#include "core/error.h"

namespace attn {

void ImageBuffer::validate(const std::string& what) const
{
    if (width <= 0 || height <= 0)
        throw Error(what, "image has no pixels (" + std::to_string(width) + "x" + std::to_string(height) + ")");
    if (channels < 1 || channels > 4)
        throw Error(what, "unsupported channel count " + std::to_string(channels) + " (1 to 4)");
    if (static_cast<int64_t>(pixels.size()) != width * height * channels)
        throw Error(what,
            "pixel buffer holds " + std::to_string(pixels.size()) + " bytes, expected "
                + std::to_string(width * height * channels));
}

ImageBuffer convertChannels(const ImageBuffer& image, int64_t channels)
{
    image.validate("image");
    if (channels != 1 && channels != 3)
        throw Error("image: cannot convert to " + std::to_string(channels) + " channels (1 or 3)");
    const bool gray = image.channels <= 2;
    if ((gray && channels == 1 && image.channels == 1) || (!gray && channels == 3 && image.channels == 3)) return image;
    ImageBuffer out { image.width, image.height, channels, {} };
    out.pixels.resize(static_cast<size_t>(image.width * image.height * channels));
    const int64_t n = image.width * image.height;
    for (int64_t i = 0; i < n; ++i) {
        const uint8_t* p = image.pixels.data() + i * image.channels;
        uint8_t* q = out.pixels.data() + i * channels;
        if (gray) {
            for (int64_t c = 0; c < channels; ++c)
                q[c] = p[0];
        } else if (channels == 3) {
            q[0] = p[0], q[1] = p[1], q[2] = p[2];
        } else {
            // PIL Convert.c L24: 16-bit fixed-point weights 0.299 / 0.587 / 0.114, rounded.
            q[0] = static_cast<uint8_t>((p[0] * 19595u + p[1] * 38470u + p[2] * 7471u + 0x8000u) >> 16);
        }
    }
    return out;
}

} // namespace attn
