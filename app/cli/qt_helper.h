// SPDX-License-Identifier: MIT
#pragma once
// The commands that need Qt (figure export, decoding --image files) run in attnscope-cli-qt, a build of this CLI
// with the GUI library, installed next to it. attnscope-cli itself links no Qt: loading Qt's ~45 libraries and
// relocating their symbols took 11 ms of every start's 15 ms, for a `generate` of a small model half its whole time.
#include <string>
#include <vector>

namespace attn::cli {

/// Whether `command` with these arguments needs the Qt build: `export`, any command given --image, and `prune` of an
/// image classifier (its corpus lists image files).
bool needsQtBuild(const std::string& command, const std::vector<std::string>& words);

/// Replaces this process with attnscope-cli-qt next to this executable, with the same arguments. Returns only when
/// there is none (a build without the GUI library): the command then runs here and says what it cannot do.
void execQtBuild(char** argv);

} // namespace attn::cli
