// SPDX-License-Identifier: MIT
#include "vision/preprocess.h"

#include "core/error.h"
#include "core/input_file.h"
#include "io/json_input.h"

#include <nlohmann/json.hpp>

namespace attn {

using nlohmann::json;

namespace {

std::vector<double> perChannel(const json& j, const char* key, int64_t channels, const std::string& source)
{
    std::vector<double> v;
    if (j.is_number()) {
        v.push_back(j.get<double>());
    } else if (j.is_array()) {
        for (const auto& e : j) {
            if (!e.is_number()) throw Error(source, std::string(key) + " must hold numbers");
            v.push_back(e.get<double>());
        }
    } else {
        throw Error(source, std::string(key) + " must be a number or a list of numbers");
    }
    if (v.size() == 1) v.assign(static_cast<size_t>(channels), v[0]);
    if (static_cast<int64_t>(v.size()) != channels)
        throw Error(source,
            std::string(key) + " has " + std::to_string(v.size()) + " values for a model with "
                + std::to_string(channels) + " channels");
    return v;
}

bool boolField(const json& j, const char* key, bool fallback, const std::string& source)
{
    if (!j.contains(key) || j[key].is_null()) return fallback;
    if (!j[key].is_boolean()) throw Error(source, std::string(key) + " must be true or false");
    return j[key].get<bool>();
}

/// Image sides beyond this are refused: a resize target is allocated before any pixel is read.
constexpr int64_t kMaxImageSide = 16384;

int64_t positiveInt(const json& j, const std::string& key, const std::string& source)
{
    if (!j.is_number_integer() || j.get<int64_t>() <= 0 || j.get<int64_t>() > kMaxImageSide)
        throw Error(source, key + " must be an integer in 1.." + std::to_string(kMaxImageSide));
    return j.get<int64_t>();
}

/// HF size dicts: {"height", "width"} or a plain integer (a square).
void readSize(const json& j, const std::string& key, int64_t& height, int64_t& width, const std::string& source)
{
    if (!j.contains(key) || j[key].is_null()) return;
    const json& s = j[key];
    if (s.is_number_integer()) {
        height = width = positiveInt(s, key, source);
    } else if (s.is_object() && s.contains("height") && s.contains("width")) {
        height = positiveInt(s["height"], key + ".height", source);
        width = positiveInt(s["width"], key + ".width", source);
    } else {
        throw Error(source,
            key
                + " must be {\"height\", \"width\"} or an integer (aspect-preserving sizes such as "
                  "shortest_edge are not supported)");
    }
}

} // namespace

ImagePreprocessConfig defaultPreprocessConfig(int64_t channels, int64_t imageSize)
{
    if (channels != 1 && channels != 3)
        throw Error("image preprocessing supports 1 or 3 channels, the model has " + std::to_string(channels));
    ImagePreprocessConfig c;
    c.channels = channels;
    c.height = c.width = imageSize;
    c.mean.assign(static_cast<size_t>(channels), 0.5);
    c.std.assign(static_cast<size_t>(channels), 0.5);
    return c;
}

ImagePreprocessConfig parsePreprocessConfigText(
    const std::string& text, const std::string& source, int64_t channels, int64_t imageSize)
{
    const json j = parseUntrustedJson(text, source, "JSON");
    if (!j.is_object()) throw Error(source, "preprocessor config is not a JSON object");
    ImagePreprocessConfig c = defaultPreprocessConfig(channels, imageSize);
    c.doResize = boolField(j, "do_resize", c.doResize, source);
    readSize(j, "size", c.height, c.width, source);
    // ViTImageProcessor has no crop step and ignores the flag; DeiTImageProcessor crops.
    const bool vitProcessor = j.contains("image_processor_type") && j["image_processor_type"] == "ViTImageProcessor";
    c.doCenterCrop = !vitProcessor && boolField(j, "do_center_crop", false, source);
    c.cropHeight = c.height;
    c.cropWidth = c.width;
    readSize(j, "crop_size", c.cropHeight, c.cropWidth, source);
    if (j.contains("resample") && !j["resample"].is_null()) {
        if (!j["resample"].is_number_integer()) throw Error(source, "resample must be an integer (PIL filter number)");
        c.resample = resampleFilterFromPil(j["resample"].get<int64_t>(), source);
    }
    c.doRescale = boolField(j, "do_rescale", c.doRescale, source);
    if (j.contains("rescale_factor") && !j["rescale_factor"].is_null()) {
        if (!j["rescale_factor"].is_number()) throw Error(source, "rescale_factor must be a number");
        c.rescaleFactor = j["rescale_factor"].get<double>();
    }
    c.doNormalize = boolField(j, "do_normalize", c.doNormalize, source);
    if (j.contains("image_mean") && !j["image_mean"].is_null())
        c.mean = perChannel(j["image_mean"], "image_mean", channels, source);
    if (j.contains("image_std") && !j["image_std"].is_null())
        c.std = perChannel(j["image_std"], "image_std", channels, source);
    for (double s : c.std)
        if (c.doNormalize && s == 0.0) throw Error(source, "image_std contains 0");
    return c;
}

ImagePreprocessConfig parsePreprocessConfig(const std::string& path, int64_t channels, int64_t imageSize)
{
    return parsePreprocessConfigText(
        readInputFile(path, file_caps::kConfigJson, "preprocessor config"), path, channels, imageSize);
}

Tensor preprocessImage(const ImageBuffer& image, const ImagePreprocessConfig& config)
{
    image.validate("image");
    ImageBuffer img = convertChannels(image, config.channels);
    if (config.doResize && (img.width != config.width || img.height != config.height))
        img = resizeLikePil(img, config.width, config.height, config.resample);
    int64_t top = 0, left = 0;
    if (config.doCenterCrop) {
        if (config.cropHeight > img.height || config.cropWidth > img.width)
            throw Error("image: crop " + std::to_string(config.cropWidth) + "x" + std::to_string(config.cropHeight)
                + " is larger than the image " + std::to_string(img.width) + "x" + std::to_string(img.height));
        top = (img.height - config.cropHeight) / 2;
        left = (img.width - config.cropWidth) / 2;
    }
    const int64_t C = config.channels;
    const int64_t H = config.doCenterCrop ? config.cropHeight : img.height;
    const int64_t W = config.doCenterCrop ? config.cropWidth : img.width;
    Tensor out({ C, H, W });
    // numpy order of operations: uint8 * float64 factor -> float32, then float32 (x - mean) / std.
    for (int64_t ch = 0; ch < C; ++ch) {
        const float mean = static_cast<float>(config.mean[static_cast<size_t>(ch)]);
        const float sd = static_cast<float>(config.std[static_cast<size_t>(ch)]);
        for (int64_t y = 0; y < H; ++y)
            for (int64_t x = 0; x < W; ++x) {
                const uint8_t v = img.at(top + y, left + x, ch);
                float f = config.doRescale ? static_cast<float>(v * config.rescaleFactor) : static_cast<float>(v);
                if (config.doNormalize) f = (f - mean) / sd;
                out.data()[(ch * H + y) * W + x] = f;
            }
    }
    return out;
}

} // namespace attn
