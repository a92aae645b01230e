// SPDX-License-Identifier: MIT
#include "mechanisms/learned_positions.h"

#include "core/error.h"
#include "model/model_source.h"
#include "model/weight_reader.h"

#include <filesystem>

namespace attn {

Mat learnedPositionTable(const ModelSource& source, int64_t count)
{
    const ModelConfig& c = source.config;
    if (std::filesystem::path(source.weightsPath).extension() == ".gguf" || source.weightsPath.empty()) return {};
    const std::vector<std::string> names = c.modelType == "gpt2"
        ? std::vector<std::string> { "wpe.weight", "transformer.wpe.weight" }
        : c.modelType == "bert" ? std::vector<std::string> { "embeddings.position_embeddings.weight",
              "bert.embeddings.position_embeddings.weight" }
                                : std::vector<std::string> {};
    if (names.empty()) return {};
    WeightReader reader(source.weightsPath);
    for (const std::string& name : names) {
        if (!reader.has(name)) continue;
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
