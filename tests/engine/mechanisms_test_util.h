// SPDX-License-Identifier: MIT
#pragma once
// Running `attnscope-cli mechanisms` and the independent NumPy check (tests/mechanisms/reference.py) from tests.
#include "support/shared_data.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace attn::test {

/// Runs `attnscope-cli mechanisms ARGS --variant VARIANT --out DIR` into a fresh folder; fails the test on a
/// non-zero exit. Returns the folder.
inline std::string runMechanismsCli(const std::string& args, const std::string& variant)
{
    const std::string dir = makeTempDir("mechanisms");
    std::string output;
    const int rc = runCommand(cliPath() + " mechanisms " + args + " --variant '" + variant + "' --out " + dir, &output);
    EXPECT_EQ(rc, 0) << output;
    return dir;
}

/// `attnscope-cli mechanisms ARGS --out DIR` must fail with a message containing `needle`.
inline void expectMechanismsFails(const std::string& args, const std::string& needle)
{
    std::string output;
    const int rc
        = runCommand(cliPath() + " mechanisms " + args + " --out " + makeTempDir("mechanisms-bad") + " 2>&1", &output);
    EXPECT_NE(rc, 0) << args;
    EXPECT_NE(output.find(needle), std::string::npos) << args << "\n" << output;
}

inline nlohmann::json readJsonFile(const std::string& path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

/// The discrepancies reference.py measures between DIR and its own recomputation.
inline nlohmann::json numpyReference(const std::string& dir)
{
    std::string output;
    const std::string script = std::string(AS_SOURCE_DIR) + "/tests/mechanisms/reference.py";
    const int rc = runCommand(pythonPath() + " " + script + " " + dir + " 2>&1", &output);
    EXPECT_EQ(rc, 0) << output;
    return rc == 0 ? nlohmann::json::parse(output) : nlohmann::json::object();
}

} // namespace attn::test
