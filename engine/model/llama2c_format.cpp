// SPDX-License-Identifier: MIT
#include "model/llama2c_format.h"

#include "core/error.h"
#include "core/input_file.h"

#include <cstring>
#include <fstream>
#include <limits>

namespace attn {
namespace {

constexpr uint32_t kMagicV1 = 0x616b3432; // "ak42"

uint64_t weightFloats(const ModelConfig& c, bool shared, int version, uint64_t seqLen)
{
    const uint64_t dim = static_cast<uint64_t>(c.hiddenSize);
    const uint64_t hidden = static_cast<uint64_t>(c.intermediateSize);
    const uint64_t layers = static_cast<uint64_t>(c.numLayers);
    const uint64_t kvDim = dim * static_cast<uint64_t>(c.numKvHeads) / static_cast<uint64_t>(c.numHeads);
    const uint64_t vocab = static_cast<uint64_t>(c.vocabSize);
    uint64_t n = vocab * dim + layers * (2 * dim + 2 * dim * dim + 2 * dim * kvDim + 3 * dim * hidden) + dim;
    if (version == 0)
        n += seqLen * static_cast<uint64_t>(c.headDim); // freq_cis_real + freq_cis_imag, each seq_len x head_size/2
    if (!shared)
        n += vocab * dim;
    return n;
}

} // namespace

bool looksLikePickle(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    unsigned char b[4] = {};
    in.read(reinterpret_cast<char*>(b), 4);
    if (in.gcount() < 2)
        return false;
    const bool zip = b[0] == 'P' && b[1] == 'K' && b[2] == 3 && b[3] == 4; // torch.save's zip container
    const bool pickle = b[0] == 0x80 && b[1] >= 2 && b[1] <= 5; // pickle PROTO opcode
    return zip || pickle;
}

Llama2cHeader readLlama2cHeader(const std::string& path)
{
    const uint64_t fileSize = requireRegularFile(path, std::numeric_limits<uint64_t>::max(), "llama2.c checkpoint");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path, "cannot open file");
    int32_t words[64] = {};
    in.read(reinterpret_cast<char*>(words), sizeof words);
    const auto got = static_cast<uint64_t>(in.gcount());

    Llama2cHeader h;
    const int32_t* p = words;
    uint32_t magic = 0;
    std::memcpy(&magic, words, 4);
    if (magic == kMagicV1) {
        if (got < 256)
            throw Error(path, "truncated llama2.c v1 header");
        h.version = words[1];
        if (h.version != 1)
            throw Error(path, "llama2.c export version " + std::to_string(h.version)
                    + " is not supported (only float32 legacy and version 1; version 2 is int8-quantized)");
        p = words + 2;
        h.headerBytes = 256;
        unsigned char shared = 0;
        std::memcpy(&shared, reinterpret_cast<const char*>(words) + 36, 1);
        h.sharedClassifier = shared != 0;
    } else {
        if (got < 28)
            throw Error(path, "file too small for a llama2.c header");
        h.headerBytes = 28;
    }
    ModelConfig& c = h.config;
    c.source = path;
    c.modelType = "llama2c";
    c.architecture = h.version == 0 ? "llama2.c (legacy)" : "llama2.c (version 1)";
    c.kind = ModelKind::Decoder;
    c.hiddenSize = p[0];
    c.intermediateSize = p[1];
    c.numLayers = p[2];
    c.numHeads = p[3];
    c.numKvHeads = p[4];
    const int32_t vocab = p[5];
    c.maxPositions = p[6];
    if (h.version == 0) {
        h.sharedClassifier = vocab > 0; // run.c: a negative vocab size means an unshared classifier
    }
    c.vocabSize = vocab < 0 ? -static_cast<int64_t>(vocab) : vocab;
    h.seqLen = static_cast<uint64_t>(c.maxPositions);
    auto bad = [&](const std::string& what) {
        return Error(path, "not a llama2.c checkpoint: " + what);
    };
    if (c.hiddenSize <= 0 || c.hiddenSize > 65536 || c.intermediateSize <= 0 || c.intermediateSize > 1 << 20)
        throw bad("implausible dim/hidden_dim " + std::to_string(c.hiddenSize) + "/" + std::to_string(c.intermediateSize));
    if (c.numLayers <= 0 || c.numLayers > 1024 || c.numHeads <= 0 || c.numHeads > 4096)
        throw bad("implausible n_layers/n_heads " + std::to_string(c.numLayers) + "/" + std::to_string(c.numHeads));
    if (c.numKvHeads <= 0 || c.numHeads % c.numKvHeads != 0)
        throw bad("n_heads " + std::to_string(c.numHeads) + " is not a multiple of n_kv_heads " + std::to_string(c.numKvHeads));
    if (c.hiddenSize % c.numHeads != 0)
        throw bad("dim " + std::to_string(c.hiddenSize) + " is not divisible by n_heads " + std::to_string(c.numHeads));
    if (c.vocabSize <= 0 || c.vocabSize > (1 << 24) || c.maxPositions <= 0 || c.maxPositions > (1 << 24))
        throw bad("implausible vocab_size/seq_len " + std::to_string(c.vocabSize) + "/" + std::to_string(c.maxPositions));
    c.headDim = c.hiddenSize / c.numHeads;
    c.ropeStyle = RopeStyle::Interleaved;
    c.ropeTheta = 10000.0;
    c.normEps = 1e-5;
    c.activation = "silu";
    c.tieWordEmbeddings = h.sharedClassifier;
    c.bosTokenId = 1;
    c.eosTokenId = 2;

    const uint64_t need = h.headerBytes + 4 * weightFloats(c, h.sharedClassifier, h.version, h.seqLen);
    if (fileSize < need)
        throw Error(path, "truncated llama2.c checkpoint: the header implies " + std::to_string(need) + " bytes, the file has "
                + std::to_string(fileSize));
    if (h.version == 0 && fileSize != need)
        throw bad("the header implies " + std::to_string(need) + " bytes, the file has " + std::to_string(fileSize));
    return h;
}

} // namespace attn
