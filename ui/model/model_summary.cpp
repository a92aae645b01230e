// SPDX-License-Identifier: MIT
#include "model/model_summary.h"

#include "io/gguf.h"
#include "io/safetensors.h"
#include "model/llama2c_format.h"

#include <filesystem>
#include <set>
#include <sstream>

namespace attn::ui {

namespace {

// Built forwards: GCC 12 warns (-Wrestrict, a false positive) on std::string::insert here.
std::string withThousands(int64_t n) {
    const std::string digits = std::to_string(n);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out.push_back(',');
        out.push_back(digits[i]);
    }
    return out;
}

} // namespace

ModelSummary summarizeModel(const ModelSource& source, const std::string& backend) {
    ModelSummary s;
    s.path = source.folder;
    s.config = source.config;
    s.backend = backend;
    if (source.format == ModelFormat::Llama2c) {
        s.format = "llama2.c checkpoint";
        s.path = source.weightsPath;
        const Llama2cHeader header = readLlama2cHeader(source.weightsPath);
        const auto bytes = std::filesystem::file_size(source.weightsPath);
        s.parameters = static_cast<int64_t>((bytes - header.headerBytes) / sizeof(float));
        s.dtype = "F32";
        return s;
    }
    if (source.format == ModelFormat::Gguf) {
        s.format = "GGUF file";
        s.path = source.weightsPath;
        std::set<std::string> types;
        const GgufFile file(source.weightsPath);
        for (const GgufTensorInfo& t : file.tensors()) {
            s.parameters += t.numel();
            types.insert(ggmlTypeTraits(t.type).name);
        }
        for (const std::string& t : types)
            s.dtype += (s.dtype.empty() ? "" : ", ") + t;
        return s;
    }
    s.format = "Hugging Face folder";
    if (source.weightsPath.empty()) return s;
    const auto store = SafetensorsStore::open(source.weightsPath);
    std::set<std::string> dtypes;
    for (const std::string& name : store->names()) {
        const TensorInfo& info = store->info(name);
        s.parameters += shapeNumel(info.shape);
        dtypes.insert(dtypeName(info.dtype));
    }
    for (const std::string& d : dtypes)
        s.dtype += (s.dtype.empty() ? "" : ", ") + d;
    return s;
}

std::string ModelSummary::text() const {
    const ModelConfig& c = config;
    std::ostringstream out;
    const auto line = [&](const char* key, const std::string& value) {
        if (!value.empty()) out << key << ": " << value << "\n";
    };
    const auto num = [](int64_t v) { return v > 0 ? std::to_string(v) : std::string(); };
    line("Model", std::filesystem::path(path).filename().string());
    line("Format", format);
    line("Architecture", c.architecture);
    line("Type", c.modelType + " (" + modelKindName(c.kind) + ")");
    line("Layers", num(c.numLayers));
    line("Decoder layers", num(c.numDecoderLayers));
    line("Heads", num(c.numHeads));
    line("KV heads", num(c.numKvHeads));
    line("Hidden size", num(c.hiddenSize));
    line("Head dim", num(c.headDim));
    line("FFN size", num(c.intermediateSize));
    line("Vocabulary", num(c.vocabSize));
    line("Max positions", num(c.maxPositions));
    line("Sliding window", num(c.slidingWindow));
    line("Parameters", parameters > 0 ? withThousands(parameters) : std::string("(no weights)"));
    line("Weights dtype", dtype);
    line("Backend", backend);
    line("Path", path);
    return out.str();
}

} // namespace attn::ui
