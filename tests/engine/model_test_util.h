// SPDX-License-Identifier: MIT
#pragma once
// Helpers shared by the model and session tests: golden comparison against the hf-tiny fixtures.
#include "core/error.h"
#include "core/npy.h"
#include "core/tensor.h"
#include "model/model.h"
#include "support/shared_data.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

namespace attn::test {

/// max |a - b|; +inf when the shapes differ (so a shape mismatch always fails a tolerance check).
inline double maxAbsDiff(const Tensor& a, const Tensor& b) {
    if (a.shape() != b.shape()) {
        ADD_FAILURE() << "shape " << shapeToString(a.shape()) << " != " << shapeToString(b.shape());
        return std::numeric_limits<double>::infinity();
    }
    double m = 0.0;
    for (int64_t i = 0; i < a.numel(); ++i) {
        const double d = std::fabs(static_cast<double>(a.data()[i]) - b.data()[i]);
        if (!(d <= m)) m = d; // NaN propagates as a failure
    }
    return m;
}

/// Rows [r0, r1) of a [rows, cols] tensor.
inline Tensor rowsOf(const Tensor& t, int64_t r0, int64_t r1) {
    const int64_t cols = t.dim(1);
    std::vector<float> v(t.data() + r0 * cols, t.data() + r1 * cols);
    return Tensor({ r1 - r0, cols }, std::move(v));
}

/// One fixture of /work/shared/fixtures/hf-tiny: its folder, manifest and goldens of item 0.
struct Fixture {
    explicit Fixture(const std::string& name)
        : name(name)
        , dir(sharedPath("fixtures/hf-tiny/" + name)) {
        std::ifstream in(dir + "/manifest.json");
        manifest = nlohmann::json::parse(in);
    }
    std::string golden(const std::string& file) const {
        return sharedPath("fixtures/hf-tiny/" + name + "/golden/item0/" + file);
    }
    Tensor tensor(const std::string& file) const { return readNpy(golden(file)); }
    std::vector<int64_t> ids(const std::string& file) const { return readNpyInts(golden(file)); }
    double tolerance(const std::string& what) const {
        return manifest["suggested_tolerances"]["max_abs_diff"][what].get<double>();
    }
    std::string layerFile(const char* stem, int64_t i) const {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%s.%02lld.npy", stem, static_cast<long long>(i));
        return buf;
    }
    std::string attentionFile(int64_t layer) const {
        char buf[64];
        std::snprintf(buf, sizeof buf, "attentions.L%02lld.npy", static_cast<long long>(layer));
        return buf;
    }

    std::string name;
    std::string dir;
    nlohmann::json manifest;
};

/// Largest differences of a full forward pass from a fixture's goldens (attention, hidden states, logits).
struct GoldenErrors {
    double attention = 0;
    double hidden = 0;
    double logits = 0;
};

/// Compares every layer's attention, HF's hidden_states tuple and the logits of `r` with `fx`'s item 0, asserting
/// the counts first; prints the errors under `label`. The caller asserts the tolerances.
inline GoldenErrors goldenErrors(const StepResult& r, const Fixture& fx, int64_t layers, const char* label) {
    GoldenErrors e;
    EXPECT_EQ(static_cast<int64_t>(r.attention.size()), layers);
    EXPECT_EQ(static_cast<int64_t>(r.hiddenStates.size()), layers + 1);
    if (static_cast<int64_t>(r.attention.size()) != layers || static_cast<int64_t>(r.hiddenStates.size()) != layers + 1)
        return { 1e30, 1e30, 1e30 };
    for (int64_t l = 0; l < layers; ++l)
        e.attention = std::max(e.attention, maxAbsDiff(r.attention[static_cast<size_t>(l)], fx.tensor(fx.attentionFile(l))));
    for (int64_t i = 0; i <= layers; ++i)
        e.hidden = std::max(
            e.hidden, maxAbsDiff(r.hiddenStates[static_cast<size_t>(i)], fx.tensor(fx.layerFile("hidden_states", i))));
    e.logits = maxAbsDiff(r.logits, fx.tensor("logits.npy"));
    std::printf("%s: max abs error attention %.2e, hidden states %.2e, logits %.2e\n", label, e.attention, e.hidden,
        e.logits);
    return e;
}

/// Runs attnscope-cli with `args`, expects exit status `expectRc` and returns stdout + stderr.
inline std::string runCli(const std::string& args, int expectRc = 0) {
    std::string out;
    const int rc = runCommand(cliPath() + " " + args, &out);
    EXPECT_EQ(rc, expectRc) << args << "\n" << out;
    return out;
}

} // namespace attn::test
