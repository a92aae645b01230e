// SPDX-License-Identifier: MIT
#pragma once
// Image resizing with PIL's Image.resize semantics, bit for bit, because HF image processors resize through PIL.
#include "vision/image_buffer.h"

namespace attn {

/// PIL resample filters by their PIL numbers (the `resample` field of preprocessor_config.json).
enum class ResampleFilter { Nearest = 0, Lanczos = 1, Bilinear = 2, Bicubic = 3, Box = 4, Hamming = 5 };

/// The filter for a PIL number; throws Error naming `source` for any number this engine does not implement
/// (bilinear, bicubic, box and hamming are implemented; nearest and lanczos are not).
ResampleFilter resampleFilterFromPil(int64_t value, const std::string& source);

/// PIL's convolution resampling of 8-bit images (libImaging/Resample.c): the filter support widens by the scale
/// when shrinking (antialiasing), coefficients are rounded to 22-bit fixed point, a horizontal pass (rounded and
/// clipped to 8 bits) precedes the vertical pass, and a pass whose size is unchanged is skipped.
ImageBuffer resizeLikePil(const ImageBuffer& image, int64_t width, int64_t height, ResampleFilter filter);

} // namespace attn
