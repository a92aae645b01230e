// SPDX-License-Identifier: MIT
#include "backend/backend_registry.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "core/checked.h"
#include "io/gguf.h"
#include "io/safetensors.h"
#include "model/model_source.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <map>

namespace attn::cli {

namespace {

/// The compute devices, and which backend `--backend` would pick (its notice goes to stderr).
nlohmann::json devicesJson(const Args& args)
{
    nlohmann::json out;
    const DeviceList list = listDevices();
    for (const auto& d : list.devices)
        out["devices"].push_back({ { "backend", d.backend }, { "name", d.name }, { "type", d.type },
            { "vendor_id", d.vendorId }, { "device_id", d.deviceId }, { "memory_bytes", d.memoryBytes },
            { "api_version", d.apiVersion }, { "driver", d.driver } });
    if (!list.vulkanProblem.empty())
        out["vulkan_problem"] = list.vulkanProblem;
    const BackendChoice choice = parseBackendChoice(args.get("backend", "auto"));
    auto selected = createBackend(choice);
    if (!selected)
        throw Error(selected.error());
    if (!selected->notice.empty())
        printNotice(selected->notice);
    out["backend"] = { { "requested", backendChoiceName(choice) }, { "selected", selected->backend->name() },
        { "device", selected->backend->device().name } };
    return out;
}

} // namespace

int runInfo(const std::vector<std::string>& words)
{
    const Args args(words, { "devices" });
    args.allowOnly({ "devices", "backend" });
    if (args.has("devices") && args.positionals().empty()) {
        std::cout << devicesJson(args).dump(2) << "\n";
        return 0;
    }
    const ModelSource src = probeModel(args.positional(0, "MODEL"));
    nlohmann::json out = nlohmann::json::parse(src.config.toJson());
    if (args.has("devices"))
        out.update(devicesJson(args));
    out["format"] = src.format == ModelFormat::Llama2c ? "llama2.c"
        : src.format == ModelFormat::Gguf              ? "gguf"
                                                       : "huggingface";
    out["weights"] = src.weightsPath;
    if (src.format == ModelFormat::HfFolder && !src.weightsPath.empty()) {
        const auto store = SafetensorsStore::open(src.weightsPath);
        int64_t params = 0;
        std::map<std::string, int64_t> byDtype;
        // Each count is checked when the header is read; their sum is checked here (four [2^62] tensors overflow).
        for (const auto& name : store->names()) {
            const auto& ti = store->info(name);
            const int64_t n = shapeNumel(ti.shape);
            params = addOrThrow(params, n, src.weightsPath, "the parameter count");
            int64_t& ofType = byDtype[dtypeName(ti.dtype)];
            ofType = addOrThrow(ofType, n, src.weightsPath, "the parameter count");
        }
        out["num_tensors"] = store->size();
        out["num_parameters"] = params;
        out["dtypes"] = byDtype;
        if (!store->metadata().empty())
            out["metadata"] = store->metadata();
    }
    if (src.format == ModelFormat::Gguf) {
        const GgufFile file(src.weightsPath);
        int64_t params = 0;
        std::map<std::string, int64_t> byType;
        for (const GgufTensorInfo& t : file.tensors()) {
            params += t.numel();
            byType[ggmlTypeTraits(t.type).name] += t.numel();
        }
        out["num_tensors"] = file.tensors().size();
        out["num_parameters"] = params;
        out["dtypes"] = byType;
        out["gguf_version"] = file.version();
    }
    std::cout << out.dump(2) << "\n";
    return 0;
}

} // namespace attn::cli
