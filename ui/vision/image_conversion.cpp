// SPDX-License-Identifier: MIT
#include "vision/image_conversion.h"

#include "core/error.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace attn::ui {

ImageBuffer imageBufferFromQImage(const QImage& image)
{
    if (image.isNull()) throw Error("image", "there is no image (decoding failed)");
    int64_t channels = 3;
    QImage::Format format = QImage::Format_RGB888;
    if (image.hasAlphaChannel()) {
        channels = 4;
        format = QImage::Format_RGBA8888; // straight alpha: the colour values are the file's
    } else if (image.isGrayscale()) {
        channels = 1;
        format = QImage::Format_Grayscale8;
    }
    const QImage converted = image.convertToFormat(format);
    ImageBuffer out { converted.width(), converted.height(), channels, {} };
    const auto rowBytes = static_cast<size_t>(out.width * channels);
    out.pixels.resize(rowBytes * static_cast<size_t>(out.height));
    for (int y = 0; y < converted.height(); ++y) // scan lines are padded to 4 bytes
        std::memcpy(out.pixels.data() + rowBytes * static_cast<size_t>(y), converted.constScanLine(y), rowBytes);
    return out;
}

QImage loadImageFile(const QString& path)
{
    QImage image;
    if (!image.load(path))
        throw Error(path.toStdString(), "cannot read or decode the image (PNG, JPEG, BMP, ... expected)");
    return image;
}

QImage imageFromPixelValues(const Tensor& pixels, const ImagePreprocessConfig& config)
{
    if (pixels.rank() != 3 || (pixels.dim(0) != 1 && pixels.dim(0) != 3))
        throw Error("pixel values", "expected [channels (1 or 3), H, W], got " + shapeToString(pixels.shape()));
    const int64_t channels = pixels.dim(0), h = pixels.dim(1), w = pixels.dim(2);
    QImage out(static_cast<int>(w), static_cast<int>(h), QImage::Format_RGB32);
    const auto at = [&](int64_t c, int64_t y, int64_t x) {
        double v = pixels.data()[(c * h + y) * w + x];
        const auto k = static_cast<size_t>(c);
        if (config.doNormalize && k < config.mean.size() && k < config.std.size())
            v = v * config.std[k] + config.mean[k];
        if (config.doRescale && config.rescaleFactor > 0.0) v /= config.rescaleFactor;
        return std::clamp(static_cast<int>(std::lround(v)), 0, 255);
    };
    for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x) {
            const int r = at(0, y, x);
            out.setPixel(static_cast<int>(x), static_cast<int>(y),
                channels == 1 ? qRgb(r, r, r) : qRgb(r, at(1, y, x), at(2, y, x)));
        }
    return out;
}

} // namespace attn::ui
