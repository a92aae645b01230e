// SPDX-License-Identifier: MIT
#include "model/model_source.h"

#include "core/error.h"
#include "model/family_registry.h"
#include "core/input_file.h"
#include "io/gguf.h"
#include "model/gguf_model.h"
#include "model/llama2c_format.h"

#include <filesystem>
#include <limits>

namespace fs = std::filesystem;

namespace attn {
namespace {

std::string extensionOf(const fs::path& p)
{
    std::string e = p.extension().string();
    for (char& ch : e)
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return e;
}

ModelSource fromFolder(const fs::path& dir)
{
    ModelSource s;
    s.format = ModelFormat::HfFolder;
    s.folder = dir.string();
    const fs::path config = dir / "config.json";
    if (!fs::exists(config)) {
        for (const ModelFamily& family : modelFamilies())
            if (family.probeFolder)
                if (std::optional<ModelConfig> c = family.probeFolder(s.folder)) {
                    s.config = std::move(*c);
                    return s;
                }
        throw Error(dir.string(), "no config.json in this folder (expected a Hugging Face model folder or a llama2.c .bin)");
    }
    s.configPath = config.string();
    s.config = parseHfConfig(s.configPath);
    if (fs::exists(dir / "model.safetensors.index.json"))
        s.weightsPath = (dir / "model.safetensors.index.json").string();
    else if (fs::exists(dir / "model.safetensors"))
        s.weightsPath = (dir / "model.safetensors").string();
    else {
        for (const char* pickle : { "pytorch_model.bin", "pytorch_model.bin.index.json", "model.pt", "model.pth" })
            if (fs::exists(dir / pickle))
                throw Error(pickleRefusal((dir / pickle).string()));
    }
    return s;
}

} // namespace

std::string pickleRefusal(const std::string& path)
{
    return path + ": this is a PyTorch pickle (torch.save). AttnScope never loads pickles because unpickling can run "
                  "arbitrary code. Convert it to safetensors first, e.g. in Python: "
                  "safetensors.torch.save_file(torch.load(path, weights_only=True), 'model.safetensors')";
}

ModelSource probeModel(const std::string& path)
{
    const fs::path p(path);
    if (!fs::exists(p))
        throw Error(path, "no such file or folder");
    if (fs::is_directory(p))
        return fromFolder(p);

    const std::string ext = extensionOf(p);
    if (ext == ".safetensors" || p.filename() == "config.json" || p.filename() == "model.safetensors.index.json") {
        ModelSource s = fromFolder(p.has_parent_path() ? p.parent_path() : fs::path("."));
        if (ext == ".safetensors")
            s.weightsPath = p.string();
        return s;
    }
    requireRegularFile(path, std::numeric_limits<uint64_t>::max(), "model file");
    if (looksLikePickle(path))
        throw Error(pickleRefusal(path));
    if (ext == ".gguf" || looksLikeGguf(path))
        return probeGguf(path);
    if (ext == ".bin") {
        ModelSource s;
        s.format = ModelFormat::Llama2c;
        Llama2cHeader h = readLlama2cHeader(path);
        s.config = h.config;
        s.config.capabilities = familyOf(s.config.modelType, path).capabilities;
        s.weightsPath = path;
        s.folder = p.has_parent_path() ? p.parent_path().string() : ".";
        return s;
    }
    throw Error(path, "unrecognized model file; expected a Hugging Face folder, a .safetensors file or a llama2.c .bin");
}

} // namespace attn
