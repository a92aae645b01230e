// SPDX-License-Identifier: MIT
#pragma once
// Decoded Qt images -> the engine's 8-bit pixel buffer (the engine never decodes files itself).
#include "core/tensor.h"
#include "vision/image_buffer.h"
#include "vision/preprocess.h"

#include <QImage>
#include <QString>

namespace attn::ui {

/// Gray (1 channel) when the image is gray without alpha, else RGB or RGBA with straight alpha, as PIL reads files.
/// Throws Error for a null image.
ImageBuffer imageBufferFromQImage(const QImage& image);

/// Loads and decodes an image file; throws Error naming the file when it cannot be read.
QImage loadImageFile(const QString& path);

/// Preprocessed pixels [channels, H, W] back to a displayable image: the normalization and rescale of `config`
/// undone, clamped to 0..255 (gray for 1 channel, RGB for 3). Throws Error for another rank or channel count.
QImage imageFromPixelValues(const Tensor& pixels, const ImagePreprocessConfig& config);

} // namespace attn::ui
