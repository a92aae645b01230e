// SPDX-License-Identifier: MIT
#include "support/shared_data.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <sys/wait.h>
#include <vector>

namespace fs = std::filesystem;

namespace attn::test {
namespace {

struct TempDirs {
    std::vector<fs::path> dirs;
    ~TempDirs()
    {
        std::error_code ec;
        for (const auto& d : dirs)
            fs::remove_all(d, ec);
    }
};
TempDirs g_tempDirs;

} // namespace

std::string sharedPath(const std::string& relative)
{
    const char* env = std::getenv("ATTNSCOPE_SHARED");
    const fs::path root = env && *env ? fs::path(env) : fs::path(AS_SHARED_DIR);
    const fs::path p = root / relative;
    if (!fs::exists(p))
        throw std::runtime_error("required shared test data is missing: " + p.string()
            + " (tests need ../shared beside the checkout, or ATTNSCOPE_SHARED)");
    return fs::weakly_canonical(p).string();
}

namespace {

/// `variable` when set and not empty, else `fallback`: a prebuilt test binary run from another folder (bench/gpu-check.sh
/// --prebuilt) finds its tools through the environment.
std::string fromEnvironment(const char* variable, const char* fallback)
{
    const char* env = std::getenv(variable);
    return env && *env ? env : fallback;
}

} // namespace

std::string cliPath() { return fromEnvironment("ATTNSCOPE_CLI", AS_CLI_PATH); }

std::string pythonPath() { return fromEnvironment("ATTNSCOPE_PYTHON", "/usr/bin/python3"); }

std::string makeTempDir(const std::string& tag)
{
    std::string templ = (fs::temp_directory_path() / ("attnscope-" + tag + "-XXXXXX")).string();
    if (!mkdtemp(templ.data()))
        throw std::runtime_error("mkdtemp failed for " + templ);
    g_tempDirs.dirs.emplace_back(templ);
    return templ;
}

int runCommand(const std::string& command, std::string* output)
{
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    if (!pipe)
        throw std::runtime_error("popen failed: " + command);
    std::array<char, 4096> buf {};
    std::string out;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0)
        out.append(buf.data(), n);
    const int status = pclose(pipe);
    if (output)
        *output = out;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace attn::test
