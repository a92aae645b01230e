// SPDX-License-Identifier: MIT
#include "analysis/atlas_roles.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace attn {
namespace {

struct Threshold {
    AtlasRole role;
    AtlasScore score;
    float atLeast;
};

// Induction first: an induction head also scores on the sink between repeats, and the score itself only counts the
// queries a repeat qualifies. Previous-token heads need most of their mass on q - 1; a sink needs over half on token 0.
constexpr std::array<Threshold, 4> kRule { {
    { AtlasRole::Induction, AtlasScore::Induction, 0.3f },
    { AtlasRole::PreviousToken, AtlasScore::PreviousToken, 0.5f },
    { AtlasRole::DuplicateToken, AtlasScore::DuplicateToken, 0.3f },
    { AtlasRole::FirstToken, AtlasScore::FirstToken, 0.5f },
} };

} // namespace

const std::string& atlasRoleName(AtlasRole role)
{
    static const std::array<std::string, kAtlasRoles> names { "induction", "previous token", "duplicate token",
        "first token (sink)", "mixed" };
    return names[static_cast<size_t>(role)];
}

const std::string& atlasRoleRule()
{
    static const std::string rule = "role = the first of: induction >= 0.3, previous_token >= 0.5, duplicate_token "
                                    ">= 0.3, first_token >= 0.5; otherwise mixed";
    return rule;
}

std::vector<AtlasRole> atlasRoles(const HeadAtlas& atlas)
{
    const int64_t heads = atlas.layers() * atlas.heads();
    std::vector<AtlasRole> roles(static_cast<size_t>(heads), AtlasRole::Mixed);
    std::vector<bool> decided(roles.size(), false);
    for (const Threshold& t : kRule) {
        const Tensor score = atlas.score(t.score);
        for (int64_t i = 0; i < heads; ++i)
            if (!decided[static_cast<size_t>(i)] && score.data()[i] >= t.atLeast) { // false for NaN
                roles[static_cast<size_t>(i)] = t.role;
                decided[static_cast<size_t>(i)] = true;
            }
    }
    return roles;
}

Tensor scoreSignatures(const HeadAtlas& atlas)
{
    const int64_t heads = atlas.layers() * atlas.heads();
    Tensor out({ heads, kAtlasScores });
    for (int s = 0; s < kAtlasScores; ++s) {
        const Tensor score = atlas.score(static_cast<AtlasScore>(s));
        double sum = 0.0, squares = 0.0, count = 0.0;
        for (int64_t i = 0; i < heads; ++i)
            if (!std::isnan(score.data()[i])) {
                sum += score.data()[i];
                squares += double(score.data()[i]) * score.data()[i];
                count += 1.0;
            }
        const double mean = count > 0.0 ? sum / count : 0.0;
        const double sd = count > 0.0 ? std::sqrt(std::max(0.0, squares / count - mean * mean)) : 0.0;
        for (int64_t i = 0; i < heads; ++i) {
            const float v = score.data()[i];
            out.data()[i * kAtlasScores + s] = std::isnan(v) || sd <= 0.0 ? 0.0f : static_cast<float>((v - mean) / sd);
        }
    }
    return out;
}

} // namespace attn
