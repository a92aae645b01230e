// SPDX-License-Identifier: MIT
#pragma once
// Decoded Qt images -> the engine's 8-bit pixel buffer (the engine never decodes files itself).
#include "vision/image_buffer.h"

#include <QImage>
#include <QString>

namespace attn::ui {

/// Gray (1 channel) when the image is gray without alpha, else RGB or RGBA with straight alpha, as PIL reads files.
/// Throws Error for a null image.
ImageBuffer imageBufferFromQImage(const QImage& image);

/// Loads and decodes an image file; throws Error naming the file when it cannot be read.
QImage loadImageFile(const QString& path);

} // namespace attn::ui
