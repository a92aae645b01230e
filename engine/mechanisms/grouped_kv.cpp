// SPDX-License-Identifier: MIT
// GQA / MQA as a what-if (Ainslie et al. 2023's conversion): the layer's KV heads mean-pooled into G groups, the
// head's queries attending to its group's pooled keys and values; and the KV-cache size that saves.
#include "mechanisms/grouped_kv.h"
#include "core/error.h"
#include "mechanisms/attention_math.h"
#include "mechanisms/sampled_rows.h"

#include <numeric>

namespace attn {

namespace {

/// Heads [H] of [T, d] stacked as [H * T, d] (row-major [H, T, d] in the .npy).
Mat stacked(const std::vector<Mat>& heads)
{
    Mat out(static_cast<Eigen::Index>(heads.size()) * heads[0].rows(), heads[0].cols());
    for (size_t h = 0; h < heads.size(); ++h)
        out.middleRows(static_cast<Eigen::Index>(h) * heads[0].rows(), heads[0].rows()) = heads[h];
    return out;
}

} // namespace

MechanismResult runGroupedKvRows(const HeadInputs& in, const MechanismSpec& spec, const std::vector<int64_t>& rows)
{
    const int64_t groups = spec.numbers[0], kvHeads = in.layerKv ? static_cast<int64_t>(in.layerKv->keys.size()) : 0;
    if (kvHeads == 0)
        throw Error(
            "variant '" + spec.text + "' pools a model layer's KV heads: it needs a model, not synthetic input");
    if (groups < 1 || kvHeads % groups)
        throw Error("variant '" + spec.text + "': G must divide the layer's " + std::to_string(kvHeads) + " KV heads");
    const int64_t perGroup = kvHeads / groups, group = in.kvHead / perGroup, T = in.tokens(), d = in.dim();
    Mat k = Mat::Zero(T, d), v = Mat::Zero(T, d);
    for (int64_t h = group * perGroup; h < (group + 1) * perGroup; ++h) {
        k += in.layerKv->keys[static_cast<size_t>(h)] / static_cast<double>(perGroup);
        v += in.layerKv->values[static_cast<size_t>(h)] / static_cast<double>(perGroup);
    }
    MechanismResult r;
    Mat scores = in.q(rows, Eigen::all) * k.transpose() * in.scale; // dotScores on the rows
    if (in.bias.size()) scores += in.bias(rows, Eigen::all);
    r.probs = maskedSoftmax(scores, modelKeepMask(in, rows));
    r.out = r.probs * v;
    r.arrays.push_back({ "k_pooled", k, {} });
    r.arrays.push_back({ "v_pooled", v, {} });
    const double bytesPerHead = 2.0 * static_cast<double>(T * d) * sizeof(float);
    r.numbers["group"] = static_cast<double>(group);
    r.numbers["kv_heads_model"] = static_cast<double>(kvHeads);
    r.numbers["kv_heads_pooled"] = static_cast<double>(groups);
    r.numbers["kv_cache_bytes"] = bytesPerHead * static_cast<double>(groups);
    r.numbers["kv_cache_bytes_model"] = bytesPerHead * static_cast<double>(kvHeads);
    r.numbers["kv_cache_bytes_mha"] = bytesPerHead * static_cast<double>(in.numHeads);
    const int64_t queriesPerKv = in.numHeads / kvHeads;
    std::string sharing;
    for (int64_t g = 0; g < groups; ++g) {
        const int64_t first = g * perGroup * queriesPerKv, last = (g + 1) * perGroup * queriesPerKv - 1;
        sharing += (g ? "; " : "") + std::string("group ") + std::to_string(g) + ": query heads "
            + std::to_string(first) + "-" + std::to_string(last) + " (model KV heads " + std::to_string(g * perGroup)
            + "-" + std::to_string((g + 1) * perGroup - 1) + ")";
    }
    r.notes["groups"] = sharing;
    r.notes["pooling"] = "k_pooled / v_pooled: the mean of the group's KV heads (k_heads / v_heads [H_kv, T, d]); "
                         "cache bytes per layer in float32 for this input";
    return r;
}

MechanismResult runGroupedKv(const HeadInputs& in, const MechanismSpec& spec)
{
    std::vector<int64_t> rows(static_cast<size_t>(in.tokens()));
    std::iota(rows.begin(), rows.end(), int64_t { 0 });
    MechanismResult r = runGroupedKvRows(in, spec, rows);
    const LayerKv& kv = *in.layerKv; // runGroupedKvRows threw when there is none
    const std::vector<int64_t> shape { static_cast<int64_t>(kv.keys.size()), in.tokens(), in.dim() };
    r.arrays.insert(
        r.arrays.begin(), { { "k_heads", stacked(kv.keys), shape }, { "v_heads", stacked(kv.values), shape } });
    return r;
}

std::vector<MechanismMetrics> groupedKvPerHead(const std::vector<HeadInputs>& layer, const MechanismSpec& spec,
    int64_t rowLimit, const std::function<void()>& checkpoint)
{
    std::vector<MechanismMetrics> out;
    for (const HeadInputs& head : layer) {
        if (checkpoint) checkpoint();
        const std::vector<int64_t> rows = sweepQueryRows(head.tokens(), rowLimit);
        const Mat exact = exactProbabilityRows(head, rows);
        out.push_back(compareAttention(exact, exact * head.v, runGroupedKvRows(head, spec, rows)));
    }
    return out;
}

} // namespace attn
