// SPDX-License-Identifier: MIT
#include "mechanisms/learned_positions.h"

#include "core/checked.h"
#include "core/error.h"
#include "model/model_source.h"
#include "model/weight_reader.h"

#include <filesystem>

namespace attn {

namespace {

bool hasSafetensors(const ModelSource& source)
{
    return !source.weightsPath.empty() && std::filesystem::path(source.weightsPath).extension() != ".gguf";
}

std::string stackName(AttentionBlock block)
{
    return block == AttentionBlock::Encoder ? "encoder" : "decoder";
}

} // namespace

Mat learnedPositionTable(const ModelSource& source, int64_t count, AttentionBlock block)
{
    const ModelConfig& c = source.config;
    if (!hasSafetensors(source)) return {};
    const bool image = c.modelType == "vit" || c.modelType == "deit";
    const int64_t offset = c.modelType == "bart" ? 2 : 0; // BartLearnedPositionalEmbedding's offset
    const std::string stack = stackName(block);
    const std::vector<std::string> names = c.modelType == "bart"
        ? std::vector<std::string> { "model." + stack + ".embed_positions.weight", stack + ".embed_positions.weight" }
        : c.modelType == "gpt2" ? std::vector<std::string> { "wpe.weight", "transformer.wpe.weight" }
        : c.modelType == "bert" ? std::vector<std::string> { "embeddings.position_embeddings.weight",
              "bert.embeddings.position_embeddings.weight" }
        : image
        ? std::vector<std::string> { c.modelType + ".embeddings.position_embeddings", "embeddings.position_embeddings" }
        : std::vector<std::string> {};
    if (names.empty()) return {};
    WeightReader reader(source.weightsPath);
    for (const std::string& name : names) {
        if (!reader.has(name)) continue;
        if (image) {
            // [1, prefix + side^2, hidden] at the training image size; other sizes interpolate it (not read here).
            const int64_t side = c.patchSize > 0 ? c.imageSize / c.patchSize : 0;
            const int64_t rows = (c.modelType == "deit" ? 2 : 1) + side * side;
            if (count != rows) return {};
            const Tensor table = reader.take(name, { 1, rows, c.hiddenSize });
            return matrixOf(table.data(), count, c.hiddenSize);
        }
        if (count < 0 || count > c.maxPositions)
            throw Error(source.weightsPath,
                name + " has " + std::to_string(c.maxPositions) + " positions, not " + std::to_string(count));
        const int64_t rows = addOrThrow(c.maxPositions, offset, source.configPath, "max_position_embeddings");
        const Tensor table = reader.take(name, { rows, c.hiddenSize });
        return matrixOf(table.data() + offset * c.hiddenSize, count, c.hiddenSize);
    }
    return {};
}

Mat t5RelativeBiasTable(const ModelSource& source, AttentionBlock block)
{
    const ModelConfig& c = source.config;
    if (c.modelType != "t5" || block == AttentionBlock::Cross || !hasSafetensors(source)) return {};
    const std::string name = stackName(block) + ".block.0.layer.0.SelfAttention.relative_attention_bias.weight";
    const Tensor table = WeightReader(source.weightsPath).take(name, { c.relativeBuckets, c.numHeads });
    return matrixOf(table.data(), c.relativeBuckets, c.numHeads);
}

Mat cosineSimilarity(const Mat& rows)
{
    Eigen::VectorXd norms = rows.rowwise().norm();
    for (Eigen::Index i = 0; i < norms.size(); ++i)
        norms(i) = norms(i) > 0.0 ? 1.0 / norms(i) : 0.0;
    const Mat unit = norms.asDiagonal() * rows;
    return unit * unit.transpose();
}

} // namespace attn
