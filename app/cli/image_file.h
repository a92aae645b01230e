// SPDX-License-Identifier: MIT
#pragma once
// Image files -> the engine's 8-bit pixel buffer. Decoding uses Qt's QImage (no display needed), so it is only
// available when the CLI is built with Qt (AS_BUILD_GUI=ON).
#include "vision/image_buffer.h"

#include <string>

namespace attn::cli {

/// PNG, JPEG, BMP, ... as gray (1 channel) when every pixel is gray and there is no alpha, else RGB or RGBA
/// (not premultiplied). Throws attn::Error naming the file when it cannot be read or this build has no decoder.
ImageBuffer readImageFile(const std::string& path);

} // namespace attn::cli
