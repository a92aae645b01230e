// SPDX-License-Identifier: MIT
// The Mechanisms tab on a long input. By default its requests in the order a user makes them, on one engine-side
// cache: the first on the Exact vs variant page (the model's pass included), a head switch there, the Linear attention
// page opened and a head switch on it, a head switch computing every page, the same without kept Linformer
// projections (the old request: the tab computed every page for each head), and a variant switch; each with wall and
// CPU seconds and the peak RSS. With OLD_SIZES: the linear-attention sweeps as they ran before (one analyzeMechanism,
// i.e. the whole head's exact attention and the draw on every row, per seed and size) against approximationSweep (the
// reference once, at most kSweepRowLimit rows), side by side on the same head. Not a Google Benchmark: one pass of each
// is seconds to minutes. See bench/README.md for the figures.
//
// usage: bench_mechanisms_ui MODEL_DIR TOKENS [OLD_SIZES]   (a GPT-2-shaped model from make_long_context_model.py;
//        OLD_SIZES: how many of each sweep's smallest sizes the old path runs)
#include "mechanisms/approximation_sweep.h"
#include "mechanisms/linformer_draws.h"
#include "mechanisms/mechanism_report.h"
#include "mechanisms/mechanisms_cache.h"
#include "mechanisms/mechanisms_request.h"
#include "mechanisms_load_average.h"
#include "model/model_loader.h"
#include "model/model_source.h"
#include "service/model_registry.h"
#include "session/session.h"

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace attn;
using bench::loadAverage;

template <class F> double seconds(F&& f)
{
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double cpuSeconds()
{
    return static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
}

long peakRssMiB()
{
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss / 1024;
}

/// The tab's requests as the panel posts them, on one cache.
void timeRequests(const std::string& path, const std::vector<int64_t>& ids, ModelRegistry& models)
{
    ui::MechanismsCache cache;
    ui::MechanismsRequest request;
    request.source = ui::HeadSource::Session;
    request.modelPath = path;
    request.sourceIds = ids;
    request.layer = 1;
    request.variant = "window:4";
    struct Step {
        const char* what;
        int64_t head;
        unsigned parts;
        bool keptDraws;
        const char* variant;
    };
    const Step steps[] = {
        { "first request, Exact vs variant page (the model's pass included)", 3, ui::kComparePart, true, "window:4" },
        { "head switch (L1.H4), Exact vs variant page", 4, ui::kComparePart, true, "window:4" },
        { "Linear attention page opened (L1.H4)", 4, ui::kLinearPart, true, "window:4" },
        { "head switch (L1.H5), Linear attention page", 5, ui::kLinearPart, true, "window:4" },
        { "head switch (L1.H6), every page", 6, ui::kAllParts, true, "window:4" },
        { "head switch (L1.H7), every page, no kept projections (the old request)", 7, ui::kAllParts, false,
            "window:4" },
        { "variant window:8 (L1.H7), Exact vs variant page", 7, ui::kComparePart, true, "window:8" },
    };
    for (const Step& step : steps) {
        request.head = step.head;
        request.parts = step.parts;
        request.variant = step.variant;
        ui::MechanismsCache* used = &cache;
        ui::MechanismsCache old; // the old request: what its cache kept (the layer's GQA table in `last`), no draws
        if (!step.keptDraws) {
            old.heads = cache.heads;
            old.headsInput = cache.headsInput;
            old.positions = cache.positions;
            old.positionsInput = cache.positionsInput;
            old.sweep = cache.sweep;
            old.sweepTokens = cache.sweepTokens;
            old.sweepSeed = cache.sweepSeed;
            old.last = cache.last;
            old.linformerDraws = LinformerDraws(0);
            used = &old;
        }
        const double cpu = cpuSeconds();
        const double wall = seconds([&] {
            ui::computeMechanisms(
                request, models, [] { return true; }, used);
        });
        std::printf("%s: %.2f s wall, %.2f s CPU, peak RSS %ld MiB; load average %s\n", step.what, wall,
            cpuSeconds() - cpu, peakRssMiB(), loadAverage().c_str());
        std::fflush(stdout);
    }
}

/// approximationSweep as it was: every draw measured by analyzeMechanism over the whole head.
std::vector<double> perSeedAnalysis(const HeadInputs& in, const std::string& family, const std::vector<int64_t>& sizes)
{
    std::vector<double> means;
    for (const int64_t size : sizes) {
        double sum = 0;
        for (int s = 0; s < ui::kSweepSeeds; ++s)
            sum += analyzeMechanism(in, parseMechanism(family + ":" + std::to_string(size) + ":" + std::to_string(s)))
                       .metrics.outRelErr;
        means.push_back(sum / ui::kSweepSeeds);
    }
    return means;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 3) {
        std::cerr << "usage: bench_mechanisms_ui MODEL_DIR TOKENS [OLD_SIZES]\n";
        return 2;
    }
    const std::string path = argv[1];
    const int64_t tokens = std::stoll(argv[2]);
    ModelRegistry models;
    const auto model = models.model(probeModel(path));
    std::mt19937_64 rng(7);
    std::vector<int64_t> ids;
    for (int64_t i = 0; i < tokens; ++i)
        ids.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(model->config().vocabSize)));
    if (argc < 4) {
        std::printf("%lld tokens, load average %s\n", static_cast<long long>(tokens), loadAverage().c_str());
        timeRequests(path, ids, models);
        return 0;
    }
    Session session(model);
    session.prefill(ids);
    const HeadInputs in = headInputsFromSession(session, 1, 3);
    std::printf("%lld tokens, d %lld, load average %s\n", static_cast<long long>(in.tokens()),
        static_cast<long long>(in.dim()), loadAverage().c_str());
    const std::vector<int64_t> linformerSizes = powersOfTwo(std::min<int64_t>(4096, 2 * tokens));
    for (const auto& [family, all] : { std::pair { std::string("linformer"), linformerSizes },
             std::pair { std::string("performer"), powersOfTwo(1024) } }) {
        const size_t oldCount = std::min(all.size(), std::stoul(argv[3]));
        const std::vector<int64_t> sizes(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(oldCount));
        std::vector<double> before;
        ApproximationSweep after, whole;
        const double tBefore = seconds([&] { before = perSeedAnalysis(in, family, sizes); });
        const double tAfter = seconds([&] { after = approximationSweep(in, family, sizes, ui::kSweepSeeds); });
        const double tWhole = seconds([&] { whole = approximationSweep(in, family, all, ui::kSweepSeeds); });
        std::printf("%s sizes 1..%lld (%zu x %d draws): before %.2f s, after %.2f s (x%.1f; %lld of %lld rows); "
                    "error at the largest: before %.4f after %.4f\n",
            family.c_str(), static_cast<long long>(sizes.back()), sizes.size(), ui::kSweepSeeds, tBefore, tAfter,
            tBefore / tAfter, static_cast<long long>(after.rows), static_cast<long long>(after.tokens), before.back(),
            after.points.back().outRelErr);
        std::printf("%s every size 1..%lld: %.2f s\n", family.c_str(), static_cast<long long>(all.back()), tWhole);
    }
    return 0;
}
