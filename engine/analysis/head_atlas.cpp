// SPDX-License-Identifier: MIT
#include "analysis/head_atlas.h"

#include "core/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {
namespace {

// Attention entries scored between two cancel polls: a few milliseconds of one core.
constexpr int64_t kPollScores = int64_t(1) << 18;

} // namespace

const std::vector<std::string>& atlasScoreNames()
{
    static const std::vector<std::string> names { "previous_token", "duplicate_token", "induction", "first_token",
        "entropy", "mean_distance" };
    return names;
}

const std::vector<std::string>& atlasScoreDefinitions()
{
    static const std::vector<std::string> definitions {
        "mean over queries q >= 1 of A[q, q-1]",
        "mean, over the queries q whose token occurred before, of the sum of A[q, j] over j < q with t[j] = t[q]",
        "mean, over the queries q for which some 0 < j <= q has t[j-1] = t[q] with j-1 < q, of the sum of A[q, j] "
        "over those j (attention on the token that followed an earlier occurrence of the current token)",
        "mean over all queries q of A[q, 0] (first-token / sink mass)",
        "mean over all queries q of -sum_j A[q, j] ln A[q, j] (nats; 0 ln 0 = 0)",
        "mean over all queries q of sum_j A[q, j] (q - j) (tokens)",
    };
    return definitions;
}

HeadAtlas::HeadAtlas(int64_t layers, int64_t heads)
    : m_layers(layers)
    , m_heads(heads)
    , m_sum(static_cast<size_t>(kAtlasScores * layers * heads), 0.0)
    , m_count(m_sum.size(), 0.0)
{
    if (layers < 1 || heads < 1)
        throw Error("head atlas: " + std::to_string(layers) + " layers x " + std::to_string(heads) + " heads");
}

size_t HeadAtlas::slot(AtlasScore score, int64_t layer, int64_t head) const
{
    return static_cast<size_t>((static_cast<int64_t>(score) * m_layers + layer) * m_heads + head);
}

void HeadAtlas::add(const std::vector<int64_t>& tokens, const std::vector<Tensor>& attention,
    const std::function<bool()>& cancelRequested)
{
    const auto n = static_cast<int64_t>(tokens.size());
    if (static_cast<int64_t>(attention.size()) != m_layers)
        throw Error("head atlas: " + std::to_string(attention.size()) + " attention layers for an atlas of "
            + std::to_string(m_layers));
    for (const Tensor& a : attention)
        a.expectShape({ m_heads, n, n }, "head atlas attention");
    // Into copies, so that a cancelled add leaves the atlas as it was.
    std::vector<double> sums = m_sum, counts = m_count;
    const auto accumulate = [&](AtlasScore s, int64_t l, int64_t h, double value) {
        sums[slot(s, l, h)] += value;
        counts[slot(s, l, h)] += 1.0;
    };
    // A poll every kPollScores attention entries, not only per head: a head of a 1,024-token line is 1M logarithms,
    // tens of milliseconds on a loaded core, and a 4,096-token one 16 times that.
    const int64_t rowsPerPoll = std::max<int64_t>(1, kPollScores / std::max<int64_t>(n, 1));
    for (int64_t l = 0; l < m_layers; ++l)
        for (int64_t h = 0; h < m_heads; ++h)
            for (int64_t q = 0; q < n; ++q) {
                if (q % rowsPerPoll == 0 && cancelRequested && cancelRequested()) throw Cancelled();
                const float* row = attention[static_cast<size_t>(l)].data() + (h * n + q) * n;
                if (q >= 1) accumulate(AtlasScore::PreviousToken, l, h, row[q - 1]);
                // The earlier occurrences of the current token are found by scanning, not kept in per-query lists:
                // those hold n^2 keys for an input of one token repeated (0.5 GB at 8k tokens), built before the first
                // poll.
                bool repeated = false;
                double duplicate = 0.0, induction = 0.0;
                for (int64_t j = 0; j < q; ++j)
                    if (tokens[static_cast<size_t>(j)] == tokens[static_cast<size_t>(q)]) {
                        repeated = true;
                        duplicate += row[j];
                        induction += row[j + 1]; // the key after the earlier occurrence
                    }
                if (repeated) {
                    accumulate(AtlasScore::DuplicateToken, l, h, duplicate);
                    accumulate(AtlasScore::Induction, l, h, induction);
                }
                accumulate(AtlasScore::FirstToken, l, h, row[0]);
                double entropy = 0.0, distance = 0.0;
                for (int64_t j = 0; j < n; ++j) {
                    if (row[j] > 0.0f) entropy -= row[j] * std::log(static_cast<double>(row[j]));
                    distance += row[j] * static_cast<double>(q - j);
                }
                accumulate(AtlasScore::Entropy, l, h, entropy);
                accumulate(AtlasScore::MeanDistance, l, h, distance);
            }
    m_sum = std::move(sums);
    m_count = std::move(counts);
    ++m_inputs;
}

void HeadAtlas::merge(const HeadAtlas& other)
{
    if (other.m_layers != m_layers || other.m_heads != m_heads)
        throw Error("head atlas: cannot merge " + std::to_string(other.m_layers) + " x " + std::to_string(other.m_heads)
            + " heads into " + std::to_string(m_layers) + " x " + std::to_string(m_heads));
    for (size_t i = 0; i < m_sum.size(); ++i) {
        m_sum[i] += other.m_sum[i];
        m_count[i] += other.m_count[i];
    }
    m_inputs += other.m_inputs;
}

Tensor HeadAtlas::score(AtlasScore score) const
{
    Tensor out({ m_layers, m_heads });
    for (int64_t l = 0; l < m_layers; ++l)
        for (int64_t h = 0; h < m_heads; ++h) {
            const size_t i = slot(score, l, h);
            out.data()[l * m_heads + h] = m_count[i] > 0.0 ? static_cast<float>(m_sum[i] / m_count[i])
                                                           : std::numeric_limits<float>::quiet_NaN();
        }
    return out;
}

std::string HeadAtlas::toJson() const
{
    nlohmann::json j;
    j["layers"] = m_layers;
    j["heads"] = m_heads;
    j["inputs"] = m_inputs;
    for (int s = 0; s < kAtlasScores; ++s) {
        const std::string& name = atlasScoreNames()[static_cast<size_t>(s)];
        const Tensor mean = score(static_cast<AtlasScore>(s));
        nlohmann::json grid = nlohmann::json::array(), sums = nlohmann::json::array(), counts = nlohmann::json::array();
        for (int64_t l = 0; l < m_layers; ++l) {
            nlohmann::json row = nlohmann::json::array(), sumRow = nlohmann::json::array(),
                           countRow = nlohmann::json::array();
            for (int64_t h = 0; h < m_heads; ++h) {
                const float m = mean.data()[l * m_heads + h];
                row.push_back(std::isnan(m) ? nlohmann::json(nullptr) : nlohmann::json(m));
                sumRow.push_back(m_sum[slot(static_cast<AtlasScore>(s), l, h)]);
                countRow.push_back(m_count[slot(static_cast<AtlasScore>(s), l, h)]);
            }
            grid.push_back(row);
            sums.push_back(sumRow);
            counts.push_back(countRow);
        }
        j[name] = grid;
        j["definitions"][name] = atlasScoreDefinitions()[static_cast<size_t>(s)];
        j["totals"][name] = { { "sum", sums }, { "count", counts } };
    }
    return j.dump(1);
}

HeadAtlas HeadAtlas::fromJson(const std::string& text, const std::string& source)
{
    try {
        const nlohmann::json j = nlohmann::json::parse(text);
        const auto layers = j.at("layers").get<int64_t>(), heads = j.at("heads").get<int64_t>();
        // Far beyond any model (a 1,000-layer x 1,000-head atlas); keeps a corrupt file from a huge allocation.
        constexpr int64_t kMaxSide = 1 << 10;
        if (layers < 1 || heads < 1 || layers > kMaxSide || heads > kMaxSide)
            throw Error(source, "a head atlas of " + std::to_string(layers) + " layers x " + std::to_string(heads)
                    + " heads (each must be 1.." + std::to_string(kMaxSide) + ")");
        HeadAtlas atlas(layers, heads);
        atlas.m_inputs = j.at("inputs").get<int64_t>();
        for (int s = 0; s < kAtlasScores; ++s) {
            const nlohmann::json& t = j.at("totals").at(atlasScoreNames()[static_cast<size_t>(s)]);
            for (int64_t l = 0; l < atlas.m_layers; ++l)
                for (int64_t h = 0; h < atlas.m_heads; ++h) {
                    const size_t i = atlas.slot(static_cast<AtlasScore>(s), l, h);
                    atlas.m_sum[i] = t.at("sum").at(static_cast<size_t>(l)).at(static_cast<size_t>(h)).get<double>();
                    atlas.m_count[i]
                        = t.at("count").at(static_cast<size_t>(l)).at(static_cast<size_t>(h)).get<double>();
                }
        }
        return atlas;
    } catch (const nlohmann::json::exception& e) {
        throw Error(source, std::string("not a head atlas scores.json: ") + e.what());
    }
}

std::vector<int64_t> inductionProbe(int64_t length, int64_t vocabSize, int64_t bos, int64_t eos, std::mt19937_64& rng)
{
    if (length < 1 || vocabSize < 3)
        throw Error("induction probe: needs a length >= 1 and a vocabulary of at least 3 tokens");
    std::uniform_int_distribution<int64_t> draw(0, vocabSize - 1);
    std::vector<int64_t> span;
    while (static_cast<int64_t>(span.size()) < length) {
        const int64_t t = draw(rng);
        if (t != bos && t != eos) span.push_back(t);
    }
    std::vector<int64_t> tokens;
    if (bos >= 0) tokens.push_back(bos);
    tokens.insert(tokens.end(), span.begin(), span.end());
    tokens.insert(tokens.end(), span.begin(), span.end());
    return tokens;
}

} // namespace attn
