// SPDX-License-Identifier: MIT
#pragma once
#include <string>

namespace attn::test {

/// Absolute path of a file under ../shared (or $ATTNSCOPE_SHARED). Throws when it is missing, so a test
/// that needs shared data fails loudly instead of skipping.
std::string sharedPath(const std::string& relative);

/// Path of the attnscope-cli binary built with the tests.
std::string cliPath();
/// The Python with numpy that runs ../shared/tools (ATTNSCOPE_PYTHON, default /usr/bin/python3).
std::string pythonPath();

/// A fresh empty temporary directory, removed at process exit.
std::string makeTempDir(const std::string& tag);

/// Runs a shell command; returns its exit code and fills `output` with stdout+stderr.
int runCommand(const std::string& command, std::string* output = nullptr);

} // namespace attn::test
