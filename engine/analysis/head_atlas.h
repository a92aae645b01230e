// SPDX-License-Identifier: MIT
#pragma once
// The head atlas: fixed, documented scores of every attention head, pooled over one or many inputs. The totals (sum
// and count per head) are kept, so shards of a corpus merge exactly.
#include "core/tensor.h"

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace attn {

/// The scores, in the order of atlasScoreNames(). With t = the input tokens and A = the head's [n, n] attention
/// (query q, key j): each is a mean over the queries it names, pooled over every input.
enum class AtlasScore { PreviousToken, DuplicateToken, Induction, FirstToken, Entropy, MeanDistance };
constexpr int kAtlasScores = 6;

/// "previous_token", "duplicate_token", "induction", "first_token", "entropy", "mean_distance".
const std::vector<std::string>& atlasScoreNames();
/// One sentence per score: its exact definition (written to scores.json and shown in the UI).
const std::vector<std::string>& atlasScoreDefinitions();

class HeadAtlas {
public:
    HeadAtlas(int64_t layers, int64_t heads);

    int64_t layers() const { return m_layers; }
    int64_t heads() const { return m_heads; }
    int64_t inputs() const { return m_inputs; }

    /// Adds one input: its tokens [n] and per layer the attention [heads, n, n] of every query over every key.
    /// Throws Error when the shapes do not fit. Asks cancelRequested (when set) every 2^18 attention entries, inside
    /// heads too (a head of a 1,024-token line is 1M logarithms); true throws Cancelled and adds nothing.
    void add(const std::vector<int64_t>& tokens, const std::vector<Tensor>& attention,
        const std::function<bool()>& cancelRequested = {});
    /// Adds another atlas's totals (a shard); throws Error when the model shapes differ.
    void merge(const HeadAtlas& other);

    /// [layers, heads] means of `score`; NaN for a head no query qualified for.
    Tensor score(AtlasScore score) const;

    /// scores.json: every score as [layer][head] (null for NaN), the definitions and the totals.
    std::string toJson() const;
    /// Reads toJson()'s output; throws Error naming `source` when it is not one.
    static HeadAtlas fromJson(const std::string& text, const std::string& source);

private:
    size_t slot(AtlasScore score, int64_t layer, int64_t head) const;

    int64_t m_layers, m_heads;
    int64_t m_inputs = 0;
    std::vector<double> m_sum, m_count; ///< [score][layer][head]
};

/// The standard induction probe: BOS (when the model has one) and then `length` random tokens twice, drawn uniformly
/// from the vocabulary without the BOS / EOS ids.
std::vector<int64_t> inductionProbe(int64_t length, int64_t vocabSize, int64_t bos, int64_t eos, std::mt19937_64& rng);

} // namespace attn
