// SPDX-License-Identifier: MIT
// GQA / MQA as a what-if (Ainslie et al. 2023's conversion): the layer's KV heads mean-pooled into G groups, the
// head's queries attending to its group's pooled keys and values; and the KV-cache size that saves.
#include "core/error.h"
#include "mechanisms/attention_math.h"
#include "mechanisms/mechanism.h"

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

MechanismResult runGroupedKv(const HeadInputs& in, const MechanismSpec& spec)
{
    const int64_t groups = spec.numbers[0], kvHeads = static_cast<int64_t>(in.layerKeys.size());
    if (kvHeads == 0)
        throw Error(
            "variant '" + spec.text + "' pools a model layer's KV heads: it needs a model, not synthetic input");
    if (groups < 1 || kvHeads % groups)
        throw Error("variant '" + spec.text + "': G must divide the layer's " + std::to_string(kvHeads) + " KV heads");
    const int64_t perGroup = kvHeads / groups, group = in.kvHead / perGroup, T = in.tokens(), d = in.dim();
    Mat k = Mat::Zero(T, d), v = Mat::Zero(T, d);
    for (int64_t h = group * perGroup; h < (group + 1) * perGroup; ++h) {
        k += in.layerKeys[static_cast<size_t>(h)] / static_cast<double>(perGroup);
        v += in.layerValues[static_cast<size_t>(h)] / static_cast<double>(perGroup);
    }
    MechanismResult r;
    r.probs = maskedSoftmax(dotScores(in, in.q, k, in.scale), modelKeepMask(in));
    r.out = r.probs * v;
    const std::vector<int64_t> shape { kvHeads, T, d };
    r.arrays.push_back({ "k_heads", stacked(in.layerKeys), shape });
    r.arrays.push_back({ "v_heads", stacked(in.layerValues), shape });
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

} // namespace attn
