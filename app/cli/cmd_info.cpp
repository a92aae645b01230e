// SPDX-License-Identifier: MIT
#include "cli/args.h"
#include "cli/commands.h"
#include "io/safetensors.h"
#include "model/model_source.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <map>

namespace attn::cli {

int runInfo(const std::vector<std::string>& words)
{
    const Args args(words, { "devices" });
    args.allowOnly({ "devices" });
    const ModelSource src = probeModel(args.positional(0, "MODEL"));
    nlohmann::json out = nlohmann::json::parse(src.config.toJson());
    out["format"] = src.format == ModelFormat::Llama2c ? "llama2.c" : "huggingface";
    out["weights"] = src.weightsPath;
    if (src.format == ModelFormat::HfFolder && !src.weightsPath.empty()) {
        const auto store = SafetensorsStore::open(src.weightsPath);
        int64_t params = 0;
        std::map<std::string, int64_t> byDtype;
        for (const auto& name : store->names()) {
            const auto& ti = store->info(name);
            params += shapeNumel(ti.shape);
            byDtype[dtypeName(ti.dtype)] += shapeNumel(ti.shape);
        }
        out["num_tensors"] = store->size();
        out["num_parameters"] = params;
        out["dtypes"] = byDtype;
        if (!store->metadata().empty())
            out["metadata"] = store->metadata();
    }
    std::cout << out.dump(2) << "\n";
    return 0;
}

} // namespace attn::cli
