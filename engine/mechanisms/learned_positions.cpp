// SPDX-License-Identifier: MIT
#include "mechanisms/learned_positions.h"

#include "core/error.h"
#include "model/model_source.h"
#include "model/weight_reader.h"

#include <filesystem>

namespace attn {

namespace {
bool isImageModel(const ModelConfig& c)
{
    return c.modelType == "vit" || c.modelType == "deit";
}

/// The names the table goes by in the family's safetensors files (none: the family has no learned table).
std::vector<std::string> tableNames(const ModelConfig& c)
{
    if (c.modelType == "gpt2") return { "wpe.weight", "transformer.wpe.weight" };
    if (c.modelType == "bert")
        return { "embeddings.position_embeddings.weight", "bert.embeddings.position_embeddings.weight" };
    if (isImageModel(c)) return { c.modelType + ".embeddings.position_embeddings", "embeddings.position_embeddings" };
    return {};
}
} // namespace

bool hasLearnedPositionTable(const ModelConfig& config)
{
    return !tableNames(config).empty();
}

Mat learnedPositionTable(const ModelSource& source, int64_t count)
{
    const ModelConfig& c = source.config;
    if (std::filesystem::path(source.weightsPath).extension() == ".gguf" || source.weightsPath.empty()) return {};
    const bool image = isImageModel(c);
    const std::vector<std::string> names = tableNames(c);
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
        const Tensor table = reader.take(name, { c.maxPositions, c.hiddenSize });
        return matrixOf(table.data(), count, c.hiddenSize);
    }
    return {};
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
