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

bool isImageModel(const ModelConfig& c)
{
    return c.modelType == "vit" || c.modelType == "deit";
}

/// The names the table goes by in the family's safetensors files (none: the family has no learned table).
std::vector<std::string> tableNames(const ModelConfig& c, AttentionBlock block)
{
    const std::string stack = stackName(block);
    if (c.modelType == "bart") return { "model." + stack + ".embed_positions.weight", stack + ".embed_positions.weight" };
    if (c.modelType == "gpt2") return { "wpe.weight", "transformer.wpe.weight" };
    if (c.modelType == "bert")
        return { "embeddings.position_embeddings.weight", "bert.embeddings.position_embeddings.weight" };
    if (isImageModel(c)) return { c.modelType + ".embeddings.position_embeddings", "embeddings.position_embeddings" };
    return {};
}

} // namespace

bool hasLearnedPositions(const ModelConfig& config)
{
    return config.modelType == "t5" || !tableNames(config, AttentionBlock::Encoder).empty();
}

Mat learnedPositionTable(const ModelSource& source, int64_t count, AttentionBlock block)
{
    const ModelConfig& c = source.config;
    if (!hasSafetensors(source)) return {};
    const bool image = isImageModel(c);
    const int64_t offset = c.modelType == "bart" ? 2 : 0; // BartLearnedPositionalEmbedding's offset
    const std::vector<std::string> names = tableNames(c, block);
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
