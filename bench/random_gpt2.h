// SPDX-License-Identifier: MIT
#pragma once
// A GPT-2-small-shaped model (12 layers, 12 heads, 768 wide, vocab 50257, random fp32 weights at HF's init scales)
// for the benchmarks: written as an HF folder (config.json + model.safetensors) to a temporary directory, loaded with
// loadModel as any downloaded model, and removed.
#include "model/model_loader.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {

namespace fs = std::filesystem;

constexpr int64_t kLayers = 12, kHeads = 12, kWidth = 768, kVocab = 50257, kPositions = 4096;

struct TensorSpec {
    std::string name;
    std::vector<int64_t> shape;
    enum Fill { Normal, Ones, Zeros } fill;
};

inline std::vector<TensorSpec> gpt2Tensors()
{
    std::vector<TensorSpec> t { { "transformer.wte.weight", { kVocab, kWidth }, TensorSpec::Normal },
        { "transformer.wpe.weight", { kPositions, kWidth }, TensorSpec::Normal } };
    for (int64_t l = 0; l < kLayers; ++l) {
        const std::string p = "transformer.h." + std::to_string(l) + ".";
        t.push_back({ p + "ln_1.weight", { kWidth }, TensorSpec::Ones });
        t.push_back({ p + "ln_1.bias", { kWidth }, TensorSpec::Zeros });
        t.push_back({ p + "attn.c_attn.weight", { kWidth, 3 * kWidth }, TensorSpec::Normal }); // Conv1D: [in, out]
        t.push_back({ p + "attn.c_attn.bias", { 3 * kWidth }, TensorSpec::Zeros });
        t.push_back({ p + "attn.c_proj.weight", { kWidth, kWidth }, TensorSpec::Normal });
        t.push_back({ p + "attn.c_proj.bias", { kWidth }, TensorSpec::Zeros });
        t.push_back({ p + "ln_2.weight", { kWidth }, TensorSpec::Ones });
        t.push_back({ p + "ln_2.bias", { kWidth }, TensorSpec::Zeros });
        t.push_back({ p + "mlp.c_fc.weight", { kWidth, 4 * kWidth }, TensorSpec::Normal });
        t.push_back({ p + "mlp.c_fc.bias", { 4 * kWidth }, TensorSpec::Zeros });
        t.push_back({ p + "mlp.c_proj.weight", { 4 * kWidth, kWidth }, TensorSpec::Normal });
        t.push_back({ p + "mlp.c_proj.bias", { kWidth }, TensorSpec::Zeros });
    }
    t.push_back({ "transformer.ln_f.weight", { kWidth }, TensorSpec::Ones });
    t.push_back({ "transformer.ln_f.bias", { kWidth }, TensorSpec::Zeros });
    return t;
}

inline int64_t numel(const std::vector<int64_t>& shape)
{
    int64_t n = 1;
    for (const int64_t d : shape)
        n *= d;
    return n;
}

/// A random GPT-2-small HF folder in a fresh temporary directory, removed with the object.
class RandomGpt2Folder {
public:
    RandomGpt2Folder()
    {
        std::string pattern = (fs::temp_directory_path() / "attnscope-bench-gpt2-XXXXXX").string();
        if (!mkdtemp(pattern.data()))
            throw std::runtime_error("cannot create a temporary directory for the bench model");
        m_dir = pattern;
        writeConfig();
        writeWeights();
    }
    ~RandomGpt2Folder()
    {
        std::error_code ec;
        fs::remove_all(m_dir, ec);
    }
    RandomGpt2Folder(const RandomGpt2Folder&) = delete;
    RandomGpt2Folder& operator=(const RandomGpt2Folder&) = delete;
    std::string path() const { return m_dir.string(); }

private:
    void writeConfig() const
    {
        std::ofstream out(m_dir / "config.json");
        out << R"({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_layer": )" << kLayers
            << R"(, "n_head": )" << kHeads << R"(, "n_embd": )" << kWidth << R"(, "vocab_size": )" << kVocab
            << R"(, "n_positions": )" << kPositions
            << R"(, "n_inner": null, "activation_function": "gelu_new", "layer_norm_epsilon": 1e-05})" << '\n';
        if (!out) throw std::runtime_error("cannot write " + (m_dir / "config.json").string());
    }

    void writeWeights() const
    {
        const std::vector<TensorSpec> tensors = gpt2Tensors();
        std::string header = "{";
        int64_t offset = 0;
        for (const TensorSpec& t : tensors) {
            const int64_t bytes = 4 * numel(t.shape);
            header += (header.size() > 1 ? ", \"" : "\"") + t.name + R"(": {"dtype": "F32", "shape": [)";
            for (size_t i = 0; i < t.shape.size(); ++i)
                header += (i ? ", " : "") + std::to_string(t.shape[i]);
            header += "], \"data_offsets\": [" + std::to_string(offset) + ", " + std::to_string(offset + bytes) + "]}";
            offset += bytes;
        }
        header += "}";
        header.append((8 - header.size() % 8) % 8, ' '); // safetensors pads the header to 8 bytes with spaces
        const fs::path file = m_dir / "model.safetensors";
        std::ofstream out(file, std::ios::binary);
        const uint64_t headerBytes = header.size();
        out.write(reinterpret_cast<const char*>(&headerBytes), sizeof headerBytes); // little-endian host
        out.write(header.data(), static_cast<std::streamsize>(header.size()));
        std::mt19937 rng(1234);
        std::normal_distribution<float> normal(0.0f, 0.02f); // HF GPT-2 initializer_range
        std::vector<float> buffer;
        for (const TensorSpec& t : tensors) {
            buffer.assign(static_cast<size_t>(numel(t.shape)), t.fill == TensorSpec::Ones ? 1.0f : 0.0f);
            if (t.fill == TensorSpec::Normal)
                for (float& v : buffer)
                    v = normal(rng);
            out.write(reinterpret_cast<const char*>(buffer.data()), static_cast<std::streamsize>(4 * buffer.size()));
        }
        if (!out) throw std::runtime_error("cannot write " + file.string());
    }

    fs::path m_dir;
};

/// Loaded once for all benchmarks of the run; the folder is only needed while loading.
inline const std::shared_ptr<attn::Model>& gpt2Small()
{
    static const std::shared_ptr<attn::Model> model = [] {
        const RandomGpt2Folder folder;
        return attn::loadModel(folder.path());
    }();
    return model;
}

/// n token ids drawn uniformly from the vocabulary (fixed seed).
inline std::vector<int64_t> randomTokens(int64_t n)
{
    std::mt19937 rng(42);
    std::uniform_int_distribution<int64_t> id(0, kVocab - 1);
    std::vector<int64_t> tokens(static_cast<size_t>(n));
    for (int64_t& t : tokens)
        t = id(rng);
    return tokens;
}

} // namespace bench
