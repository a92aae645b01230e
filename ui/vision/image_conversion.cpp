// SPDX-License-Identifier: MIT
#include "vision/image_conversion.h"

#include "core/error.h"

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

} // namespace attn::ui
