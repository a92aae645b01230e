// SPDX-License-Identifier: MIT
#include "cli/qt_helper.h"

#include "model/model_source.h"

#include <climits>
#include <string_view>
#include <unistd.h>

namespace attn::cli {

namespace {

/// Whether `path` is an image classifier; false for what cannot be probed, which the command itself then reports.
bool isImageModel(const std::string& path)
{
    try {
        return probeModel(path).config.kind == ModelKind::Vision;
    } catch (...) {
        return false;
    }
}

} // namespace

bool needsQtBuild(const std::string& command, const std::vector<std::string>& words)
{
    if (command == "export") return true;
    for (const std::string& w : words)
        if (w == "--image" || std::string_view(w).starts_with("--image=")) return true;
    // `prune` over an image classifier's list of image files decodes them.
    return command == "prune" && !words.empty() && isImageModel(words.front());
}

void execQtBuild(char** argv)
{
    char self[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return;
    std::string path(self, static_cast<size_t>(n));
    path = path.substr(0, path.rfind('/') + 1) + "attnscope-cli-qt";
    if (access(path.c_str(), X_OK) != 0) return;
    execv(path.c_str(), argv);
}

} // namespace attn::cli
