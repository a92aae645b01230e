// SPDX-License-Identifier: MIT
#include "cli/image_file.h"

#include "core/error.h"

#ifdef AS_CLI_HAVE_QT_GUI
#include <QImage>
#include <QString>

#include <cstring>
#endif

namespace attn::cli {

#ifdef AS_CLI_HAVE_QT_GUI

ImageBuffer readImageFile(const std::string& path)
{
    QImage image;
    if (!image.load(QString::fromStdString(path)))
        throw Error(path, "cannot read or decode the image (PNG, JPEG, BMP, ... expected)");
    const bool alpha = image.hasAlphaChannel();
    int64_t channels = 3;
    QImage::Format format = QImage::Format_RGB888;
    if (alpha) {
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

#else

ImageBuffer readImageFile(const std::string& path)
{
    throw Error(path,
        "this attnscope-cli was built without Qt (AS_BUILD_GUI=OFF) and cannot decode images; "
        "pass the preprocessed tensor with --pixel-values FILE.npy instead");
}

#endif

} // namespace attn::cli
