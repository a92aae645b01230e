// SPDX-License-Identifier: MIT
#include "backend/vulkan_probe_cache.h"

#include "core/cache_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace attn {
namespace {

namespace fs = std::filesystem;

constexpr const char* kHeader = "attnscope-vulkan-probe 1";

/// The folders the Vulkan loader reads driver manifests from on Linux (loader docs, "Driver Discovery on Linux").
std::vector<fs::path> manifestFolders()
{
    std::vector<fs::path> dirs;
    const auto addList = [&](const char* var, const char* fallback) {
        std::string list = std::getenv(var) && *std::getenv(var) ? std::getenv(var) : fallback;
        std::stringstream in(list);
        for (std::string dir; std::getline(in, dir, ':');)
            if (!dir.empty()) dirs.push_back(fs::path(dir) / "vulkan" / "icd.d");
    };
    addList("XDG_CONFIG_DIRS", "/etc/xdg");
    dirs.emplace_back("/etc/vulkan/icd.d");
    addList("XDG_DATA_DIRS", "/usr/local/share:/usr/share");
    if (const char* home = std::getenv("HOME"); home && *home) {
        dirs.push_back(fs::path(home) / ".config" / "vulkan" / "icd.d");
        dirs.push_back(fs::path(home) / ".local" / "share" / "vulkan" / "icd.d");
    }
    return dirs;
}

/// Sorted "name size mtime" lines of a folder's entries; nothing for a folder that does not exist.
void describeFolder(const fs::path& dir, std::string* out)
{
    std::vector<std::string> lines;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        struct stat st {};
        if (::stat(it->path().c_str(), &st) != 0) continue;
        lines.push_back(it->path().string() + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtime));
    }
    std::sort(lines.begin(), lines.end());
    for (const std::string& l : lines)
        *out += l + "\n";
}

uint64_t fnv1a(const std::string& text)
{
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : text)
        h = (h ^ c) * 1099511628211ull;
    return h;
}

fs::path probeFile()
{
    const fs::path dir = cacheDirectory();
    return dir.empty() ? fs::path() : dir / "vulkan-probe.txt";
}

} // namespace

std::string vulkanSetupFingerprint()
{
    std::string state;
#if AS_HAVE_VULKAN
    state += "build-vulkan\n";
#endif
    for (const char* var : { "VK_ICD_FILENAMES", "VK_DRIVER_FILES", "VK_ADD_DRIVER_FILES", "VK_LOADER_DRIVERS_SELECT",
             "VK_LOADER_DRIVERS_DISABLE" })
        state += std::string(var) + "=" + (std::getenv(var) ? std::getenv(var) : "") + "\n";
    for (const fs::path& dir : manifestFolders())
        describeFolder(dir, &state);
    describeFolder("/dev/dri", &state);
    std::error_code ec;
    for (fs::directory_iterator it("/dev", ec), end; !ec && it != end; it.increment(ec))
        if (it->path().filename().string().rfind("nvidia", 0) == 0) state += it->path().string() + "\n";
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(state)));
    return hex;
}

std::optional<std::string> rememberedSoftwareOnlyProbe(const std::string& fingerprint)
{
    const fs::path path = probeFile();
    if (path.empty()) return std::nullopt;
    std::ifstream in(path);
    std::string header, print, notice;
    if (!std::getline(in, header) || header != kHeader || !std::getline(in, print) || print != fingerprint
        || !std::getline(in, notice) || notice.empty())
        return std::nullopt;
    return notice;
}

void rememberSoftwareOnlyProbe(const std::string& fingerprint, const std::string& notice)
{
    const fs::path path = probeFile();
    if (path.empty()) return;
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    std::string line = notice;
    std::replace(line.begin(), line.end(), '\n', ' ');
    const fs::path tmp = path.string() + ".tmp" + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << kHeader << "\n" << fingerprint << "\n" << line << "\n";
        if (!out) return;
    }
    fs::rename(tmp, path, ec); // atomic: a concurrent start reads the old file or the new one, never half of one
    if (ec) fs::remove(tmp, ec);
}

} // namespace attn
