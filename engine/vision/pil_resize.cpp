// SPDX-License-Identifier: MIT
#include "vision/pil_resize.h"

#include "core/error.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace attn {
namespace {

constexpr int kPrecisionBits = 32 - 8 - 2;

struct Filter {
    double (*fn)(double);
    double support;
};

double bilinear(double x)
{
    x = std::abs(x);
    return x < 1.0 ? 1.0 - x : 0.0;
}

double bicubic(double x)
{
    constexpr double a = -0.5;
    x = std::abs(x);
    if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
    if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
    return 0.0;
}

double box(double x)
{
    return x > -0.5 && x <= 0.5 ? 1.0 : 0.0;
}

double hamming(double x)
{
    x = std::abs(x);
    if (x == 0.0) return 1.0;
    if (x >= 1.0) return 0.0;
    x *= std::numbers::pi;
    return std::sin(x) / x * (0.54f + 0.46f * std::cos(x)); // PIL writes these two constants as floats
}

Filter filterFor(ResampleFilter f)
{
    switch (f) {
    case ResampleFilter::Bilinear:
        return { bilinear, 1.0 };
    case ResampleFilter::Bicubic:
        return { bicubic, 2.0 };
    case ResampleFilter::Box:
        return { box, 0.5 };
    case ResampleFilter::Hamming:
        return { hamming, 1.0 };
    default:
        throw Error("resize: resample filter " + std::to_string(static_cast<int>(f)) + " is not implemented");
    }
}

/// One axis: for each output index, the first input index, the tap count and fixed-point weights.
struct Coefficients {
    int ksize = 0;
    std::vector<int> first, count;
    std::vector<int32_t> weights; ///< out * ksize
};

Coefficients precompute(int inSize, int outSize, const Filter& filter)
{
    const double scale = static_cast<double>(inSize) / outSize;
    const double filterScale = std::max(scale, 1.0);
    const double support = filter.support * filterScale;
    Coefficients c;
    c.ksize = static_cast<int>(std::ceil(support)) * 2 + 1;
    c.first.resize(outSize);
    c.count.resize(outSize);
    c.weights.assign(static_cast<size_t>(outSize) * c.ksize, 0);
    std::vector<double> k(c.ksize);
    for (int xx = 0; xx < outSize; ++xx) {
        const double center = (xx + 0.5) * scale;
        const double ss = 1.0 / filterScale;
        const int xmin = std::max(static_cast<int>(center - support + 0.5), 0);
        const int xmax = std::min(static_cast<int>(center + support + 0.5), inSize) - xmin;
        double ww = 0.0;
        for (int x = 0; x < xmax; ++x) {
            k[x] = filter.fn((x + xmin - center + 0.5) * ss);
            ww += k[x];
        }
        for (int x = 0; x < xmax; ++x) {
            const double w = ww != 0.0 ? k[x] / ww : k[x];
            c.weights[static_cast<size_t>(xx) * c.ksize + x]
                = static_cast<int32_t>(w < 0 ? -0.5 + w * (1 << kPrecisionBits) : 0.5 + w * (1 << kPrecisionBits));
        }
        c.first[xx] = xmin;
        c.count[xx] = xmax;
    }
    return c;
}

uint8_t clip8(int32_t v)
{
    return static_cast<uint8_t>(std::clamp(v >> kPrecisionBits, 0, 255));
}

/// Resamples along one axis of an interleaved image; `horizontal` picks the axis.
ImageBuffer pass(const ImageBuffer& in, int outSize, const Filter& filter, bool horizontal)
{
    const int inSize = static_cast<int>(horizontal ? in.width : in.height);
    const Coefficients c = precompute(inSize, outSize, filter);
    ImageBuffer out { horizontal ? outSize : in.width, horizontal ? in.height : outSize, in.channels, {} };
    out.pixels.resize(static_cast<size_t>(out.width * out.height * out.channels));
    for (int64_t y = 0; y < out.height; ++y)
        for (int64_t x = 0; x < out.width; ++x) {
            const int o = static_cast<int>(horizontal ? x : y);
            const int32_t* k = c.weights.data() + static_cast<size_t>(o) * c.ksize;
            for (int64_t ch = 0; ch < in.channels; ++ch) {
                int32_t ss = 1 << (kPrecisionBits - 1);
                for (int t = 0; t < c.count[o]; ++t) {
                    const int src = c.first[o] + t;
                    ss += static_cast<int32_t>(horizontal ? in.at(y, src, ch) : in.at(src, x, ch)) * k[t];
                }
                out.pixels[static_cast<size_t>((y * out.width + x) * out.channels + ch)] = clip8(ss);
            }
        }
    return out;
}

} // namespace

ResampleFilter resampleFilterFromPil(int64_t value, const std::string& source)
{
    switch (value) {
    case 2:
        return ResampleFilter::Bilinear;
    case 3:
        return ResampleFilter::Bicubic;
    case 4:
        return ResampleFilter::Box;
    case 5:
        return ResampleFilter::Hamming;
    default:
        throw Error(source,
            "resample " + std::to_string(value)
                + " is not supported (2 = bilinear, 3 = bicubic, 4 = box, 5 = hamming)");
    }
}

ImageBuffer resizeLikePil(const ImageBuffer& image, int64_t width, int64_t height, ResampleFilter filter)
{
    image.validate("resize input");
    if (width <= 0 || height <= 0 || width > 65536 || height > 65536)
        throw Error("resize: target size " + std::to_string(width) + "x" + std::to_string(height) + " is invalid");
    const Filter f = filterFor(filter);
    // PIL runs the horizontal pass over the whole height here: the vertical bounds it crops to
    // cover every row that any output row reads, so the result is identical.
    ImageBuffer out = image;
    if (width != image.width) out = pass(out, static_cast<int>(width), f, true);
    if (height != image.height) out = pass(out, static_cast<int>(height), f, false);
    return out;
}

} // namespace attn
