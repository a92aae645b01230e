// SPDX-License-Identifier: MIT
#include "cli/qt_helper.h"

#include <climits>
#include <string_view>
#include <unistd.h>

namespace attn::cli {

bool needsQtBuild(const std::string& command, const std::vector<std::string>& words)
{
    if (command == "export") return true;
    for (const std::string& w : words)
        if (w == "--image" || std::string_view(w).starts_with("--image=")) return true;
    return false;
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
