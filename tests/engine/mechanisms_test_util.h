// SPDX-License-Identifier: MIT
#pragma once
// Running `attnscope-cli mechanisms` and the independent NumPy check (tests/mechanisms/reference.py) from tests.
#include "core/npy.h"
#include "support/shared_data.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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

/// Largest |all[head] - exact.npy| for attention [heads, T, S] and exact.npy [T, S]; infinity when the shapes differ.
inline double headVersusExact(const Tensor& all, int64_t head, const std::string& dir)
{
    const Tensor exact = readNpy(dir + "/exact.npy");
    const int64_t T = exact.dim(0), S = exact.dim(1);
    EXPECT_EQ(all.dim(1), T);
    EXPECT_EQ(all.dim(2), S);
    if (all.dim(1) != T || all.dim(2) != S) return INFINITY;
    double worst = 0.0;
    for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j < S; ++j)
            worst = std::max(worst, static_cast<double>(std::abs(all.at({ head, i, j }) - exact.at({ i, j }))));
    return worst;
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

inline constexpr double kProbTol = 1e-6;
inline constexpr double kMetricTol = 1e-6;
inline constexpr double kFitTol = 1e-4;

/// The bounds every variant's NumPy check is held to (test_mechanisms_reference.cpp says why).
inline void expectMatchesReference(const nlohmann::json& r)
{
    SCOPED_TRACE(r.dump());
    ASSERT_TRUE(r.contains("probs_err"));
    EXPECT_LE(r["exact_err"].get<double>(), kProbTol);
    EXPECT_LE(r["probs_err"].get<double>(), kProbTol);
    EXPECT_LE(r["out_err"].get<double>(), kProbTol * r["out_scale"].get<double>());
    EXPECT_LE(r["out_rel_err_err"].get<double>(), kMetricTol);
    EXPECT_LE(r["entropy_err"].get<double>(), kMetricTol);
    if (r.contains("kl_err")) {
        EXPECT_LE(r["kl_err"].get<double>(), kMetricTol);
        EXPECT_LE(r["mass_kept_err"].get<double>(), kMetricTol);
    } else {
        EXPECT_TRUE(r["kl_null"].get<bool>()) << "Linformer's kl_mean / mass_kept must be null";
    }
    if (r.contains("mask_mismatches")) {
        EXPECT_EQ(r["mask_mismatches"].get<int>(), 0);
    }
    if (r.contains("fit_rel_err")) {
        EXPECT_LE(r["fit_rel_err"].get<double>(), kFitTol);
    }
    if (r.contains("orthogonality_err")) {
        EXPECT_LE(r["orthogonality_err"].get<double>(), kProbTol);
    }
    if (r.contains("slope_err")) {
        EXPECT_LE(r["slope_err"].get<double>(), 1e-9);
    }
    if (r.contains("rotations_shape_ok")) {
        EXPECT_TRUE(r["rotations_shape_ok"].get<bool>());
    }
    if (r.contains("projection_shape_ok")) {
        EXPECT_TRUE(r["projection_shape_ok"].get<bool>());
    }
    if (r.contains("flash_out_err")) {
        // The bound: flash equals exact to 1e-6, for block sizes that do and do not divide T.
        EXPECT_LE(r["flash_out_err"].get<double>(), 1e-6 * r["out_scale"].get<double>());
        EXPECT_LE(r["flash_probs_err"].get<double>(), 1e-6);
        EXPECT_LE(r["running_final_err"].get<double>(), kProbTol);
        EXPECT_EQ(r["bytes_err"].get<double>(), 0.0);
    }
    if (r.contains("unrotate_err")) {
        // The model's own table re-applied in NumPy to q_unrotated / k_unrotated gives back q and k, relative to
        // their largest entry: the unrotated values are stored as float32 (half an ulp, 6e-8 relative), the rest is
        // float64 rounding.
        EXPECT_LE(r["unrotate_err"].get<double>(), kProbTol);
    }
    if (r.contains("cache_err")) {
        EXPECT_EQ(r["cache_err"].get<double>(), 0.0);
        EXPECT_EQ(r["own_kv_err"].get<double>(), 0.0);
    }
}

} // namespace attn::test
