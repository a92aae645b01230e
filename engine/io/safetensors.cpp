// SPDX-License-Identifier: MIT
#include "io/safetensors.h"

#include "core/checked.h"
#include "core/error.h"
#include "core/half.h"
#include "core/input_file.h"
#include "core/mapped_file.h"
#include "io/json_input.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>

namespace fs = std::filesystem;

namespace attn {
namespace {

bool parseDType(const std::string& s, DType& out)
{
    static const std::map<std::string, DType> names = {
        { "F64", DType::F64 }, { "F32", DType::F32 }, { "F16", DType::F16 }, { "BF16", DType::BF16 },
        { "I64", DType::I64 }, { "I32", DType::I32 }, { "I16", DType::I16 }, { "I8", DType::I8 },
        { "U8", DType::U8 }, { "BOOL", DType::Bool },
    };
    const auto it = names.find(s);
    if (it == names.end())
        return false;
    out = it->second;
    return true;
}

/// A weights file (a shard, or a folder's model.safetensors) must stay inside the model folder once symlinks are
/// resolved (a link to /etc/passwd is refused, not read). The one exception is the Hugging Face hub cache, whose
/// snapshots/REV/ files link to ../../blobs/. `named` is the file that names it (the index, or the file itself).
void requireInsideFolder(const fs::path& file, const fs::path& named, const std::string& what)
{
    std::error_code targetError, folderError;
    const fs::path target = fs::weakly_canonical(file, targetError);
    const fs::path folder = fs::weakly_canonical(fs::absolute(named).parent_path(), folderError);
    const auto inside = [&](const fs::path& dir) {
        const auto rel = target.lexically_relative(dir);
        return !rel.empty() && *rel.begin() != "..";
    };
    const fs::path snapshots = folder.parent_path();
    const bool hubCache = snapshots.filename() == "snapshots" && inside(snapshots.parent_path() / "blobs");
    if (targetError || folderError || !(inside(folder) || hubCache))
        throw Error(named.string(),
            what + " " + file.filename().string() + " is a link to a file outside the model folder; refusing to read it");
}

uint64_t readLe64(const uint8_t* p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

} // namespace

std::string dtypeName(DType d)
{
    switch (d) {
    case DType::F64: return "F64";
    case DType::F32: return "F32";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
    case DType::I64: return "I64";
    case DType::I32: return "I32";
    case DType::I16: return "I16";
    case DType::I8: return "I8";
    case DType::U8: return "U8";
    case DType::Bool: return "BOOL";
    }
    return "?";
}

size_t dtypeSize(DType d)
{
    switch (d) {
    case DType::F64:
    case DType::I64: return 8;
    case DType::F32:
    case DType::I32: return 4;
    case DType::F16:
    case DType::BF16:
    case DType::I16: return 2;
    case DType::I8:
    case DType::U8:
    case DType::Bool: return 1;
    }
    return 0;
}

SafetensorsStore::~SafetensorsStore() = default;

std::shared_ptr<SafetensorsStore> SafetensorsStore::open(const std::string& pathIn)
{
    std::shared_ptr<SafetensorsStore> store(new SafetensorsStore());
    fs::path path(pathIn);
    if (fs::is_directory(path)) {
        if (fs::exists(path / "model.safetensors.index.json"))
            path /= "model.safetensors.index.json";
        else if (fs::exists(path / "model.safetensors"))
            path /= "model.safetensors";
        else
            throw Error(pathIn, "no model.safetensors or model.safetensors.index.json in this folder");
    }
    if (!fs::exists(path))
        throw Error(path.string(), "file not found");

    if (path.string().size() > 5 && path.string().substr(path.string().size() - 5) == ".json") {
        const nlohmann::json index = readUntrustedJson(path.string(), file_caps::kConfigJson, "index JSON");
        if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object())
            throw Error(path.string(), "index has no \"weight_map\" object");
        std::map<std::string, std::string> expected; // tensor -> shard file
        std::set<std::string> shards;
        for (const auto& [name, file] : index["weight_map"].items()) {
            if (!file.is_string())
                throw Error(path.string(), "weight_map entry for '" + name + "' is not a file name");
            const std::string f = file.get<std::string>();
            if (f.find('/') != std::string::npos || f.find("..") != std::string::npos)
                throw Error(path.string(), "weight_map entry for '" + name + "' points outside the folder: " + f);
            expected[name] = f;
            shards.insert(f);
        }
        for (const auto& shard : shards) {
            requireInsideFolder(path.parent_path() / shard, path, "shard");
            store->addFile((path.parent_path() / shard).string());
        }
        for (const auto& [name, file] : expected) {
            const auto it = store->m_index.find(name);
            if (it == store->m_index.end())
                throw Error(path.string(), "tensor '" + name + "' listed in weight_map is missing from " + file);
            if (fs::path(store->m_files[store->m_tensors[it->second].fileIndex]).filename() != file)
                throw Error(path.string(), "tensor '" + name + "' is not in the shard weight_map names (" + file + ")");
        }
    } else {
        requireInsideFolder(path, path, "weights file");
        store->addFile(path.string());
    }
    return store;
}

void SafetensorsStore::addFile(const std::string& path)
{
    auto map = std::make_unique<MappedFile>(path);
    const size_t fileSize = map->size();
    if (fileSize < 8)
        throw Error(path, "file too small for a safetensors header (" + std::to_string(fileSize) + " bytes)");
    const uint64_t headerLen = readLe64(map->data());
    if (headerLen > kMaxHeaderBytes)
        throw Error(path, "header length " + std::to_string(headerLen) + " exceeds the 100 MiB cap");
    if (headerLen > fileSize - 8)
        throw Error(path, "header length " + std::to_string(headerLen) + " runs past the end of the file ("
                + std::to_string(fileSize) + " bytes)");
    const nlohmann::json header = parseUntrustedJson(
        std::string_view(reinterpret_cast<const char*>(map->data() + 8), headerLen), path, "JSON header");
    if (!header.is_object())
        throw Error(path, "header is not a JSON object");

    const size_t fileIndex = m_files.size();
    const uint64_t dataStart = 8 + headerLen;
    const uint64_t dataSize = fileSize - dataStart;
    std::vector<TensorInfo> infos;
    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__") {
            if (!entry.is_object())
                throw Error(path, "__metadata__ is not an object");
            for (const auto& [k, v] : entry.items()) {
                if (!v.is_string())
                    throw Error(path, "__metadata__ value for '" + k + "' is not a string");
                m_metadata[k] = v.get<std::string>();
            }
            continue;
        }
        const std::string where = "tensor '" + name + "'";
        if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") || !entry.contains("data_offsets"))
            throw Error(path, where + ": entry needs dtype, shape and data_offsets");
        TensorInfo info;
        info.name = name;
        info.fileIndex = fileIndex;
        if (!entry["dtype"].is_string() || !parseDType(entry["dtype"].get<std::string>(), info.dtype))
            throw Error(path, where + ": unknown dtype " + describeJson(entry["dtype"]));
        if (!entry["shape"].is_array())
            throw Error(path, where + ": shape is not an array");
        if (entry["shape"].size() > 64)
            throw Error(
                path, where + ": shape has " + std::to_string(entry["shape"].size()) + " dimensions (at most 64)");
        for (const auto& d : entry["shape"]) {
            if (!d.is_number_unsigned()
                || d.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
                throw Error(path, where + ": shape has a non-integer or negative dimension " + describeJson(d));
            info.shape.push_back(d.get<int64_t>());
        }
        const auto& off = entry["data_offsets"];
        if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
            throw Error(path, where + ": data_offsets must be two non-negative integers");
        info.begin = off[0].get<uint64_t>();
        info.end = off[1].get<uint64_t>();
        if (info.end < info.begin)
            throw Error(path, where + ": data_offsets end before they begin");
        if (info.end > dataSize)
            throw Error(path, where + ": data_offsets [" + std::to_string(info.begin) + ", " + std::to_string(info.end)
                    + ") run past the data section (" + std::to_string(dataSize) + " bytes); the file may be truncated");
        const auto expectBytes = static_cast<uint64_t>(
            shapeBytes(info.shape, static_cast<int64_t>(dtypeSize(info.dtype)), path + ": " + where));
        if (info.end - info.begin != expectBytes)
            throw Error(path, where + ": shape " + shapeToString(info.shape) + " x " + dtypeName(info.dtype) + " needs "
                    + std::to_string(expectBytes) + " bytes but data_offsets span " + std::to_string(info.end - info.begin));
        if (m_index.count(name))
            throw Error(path, where + ": appears in more than one file");
        infos.push_back(std::move(info));
    }
    std::vector<const TensorInfo*> sorted;
    for (const auto& i : infos)
        sorted.push_back(&i);
    std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->begin < b->begin; });
    for (size_t i = 1; i < sorted.size(); ++i)
        if (sorted[i]->begin < sorted[i - 1]->end)
            throw Error(path, "tensor '" + sorted[i]->name + "' overlaps tensor '" + sorted[i - 1]->name + "' in the data section");

    m_files.push_back(path);
    m_maps.push_back(std::move(map));
    m_dataStart.push_back(dataStart);
    for (auto& i : infos) {
        m_index[i.name] = m_tensors.size();
        m_tensors.push_back(std::move(i));
    }
}

const TensorInfo& SafetensorsStore::info(const std::string& name) const
{
    const auto it = m_index.find(name);
    if (it == m_index.end())
        throw Error(m_files.empty() ? std::string("safetensors") : m_files.front(), "missing tensor '" + name + "'");
    return m_tensors[it->second];
}

std::vector<std::string> SafetensorsStore::names() const
{
    std::vector<std::string> out;
    for (const auto& t : m_tensors)
        out.push_back(t.name);
    return out;
}

uint64_t SafetensorsStore::residentBytesToLoad(const std::function<bool(const std::string&)>& transposedAtLoad) const
{
    int64_t bytes = 0;
    for (const auto& map : m_maps)
        bytes = addOrThrow(bytes, static_cast<int64_t>(map->size()), map->path(), "the mapped size");
    for (const auto& t : m_tensors) {
        const bool half = t.dtype == DType::F16 || t.dtype == DType::BF16;
        const bool aligned = reinterpret_cast<uintptr_t>(rawData(t)) % alignof(float) == 0;
        const bool inPlace = t.shape.size() >= 2 && (half || (t.dtype == DType::F32 && aligned));
        const bool transposed = transposedAtLoad && transposedAtLoad(t.name);
        if (inPlace && !transposed) continue;
        const int64_t elementBytes = transposed && half ? 2 : static_cast<int64_t>(sizeof(float));
        bytes = addOrThrow(bytes, shapeBytes(t.shape, elementBytes), m_files[t.fileIndex], "the resident size");
    }
    return static_cast<uint64_t>(bytes);
}

const uint8_t* SafetensorsStore::rawData(const TensorInfo& info) const
{
    return m_maps[info.fileIndex]->data() + m_dataStart[info.fileIndex] + info.begin;
}

Tensor SafetensorsStore::load(const std::string& name) const
{
    const TensorInfo& ti = info(name);
    const uint8_t* src = rawData(ti);
    const size_t n = static_cast<size_t>(shapeNumel(ti.shape));
    std::vector<float> out(n);
    switch (ti.dtype) {
    case DType::F32:
        std::memcpy(out.data(), src, n * 4);
        break;
    case DType::F64:
        for (size_t i = 0; i < n; ++i) {
            double d;
            std::memcpy(&d, src + 8 * i, 8);
            out[i] = static_cast<float>(d);
        }
        break;
    case DType::F16:
    case DType::BF16:
        for (size_t i = 0; i < n; ++i) {
            uint16_t h;
            std::memcpy(&h, src + 2 * i, 2);
            out[i] = ti.dtype == DType::F16 ? halfToFloat(h) : bf16ToFloat(h);
        }
        break;
    default:
        throw Error(m_files[ti.fileIndex], "tensor '" + name + "' has dtype " + dtypeName(ti.dtype) + ", not a float type");
    }
    return Tensor(ti.shape, std::move(out));
}

Tensor SafetensorsStore::load(const std::string& name, const Shape& expected) const
{
    const TensorInfo& ti = info(name);
    if (ti.shape != expected)
        throw Error(m_files[ti.fileIndex], "tensor '" + name + "' has shape " + shapeToString(ti.shape) + ", expected "
                + shapeToString(expected));
    return load(name);
}

} // namespace attn
