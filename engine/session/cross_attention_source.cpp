// SPDX-License-Identifier: MIT
#include "session/cross_attention_source.h"

#include "attention_source/backend_source.h"
#include "core/error.h"
#include "model/seq2seq_model.h"

#include <algorithm>
#include <string>

namespace attn {

std::shared_ptr<const AttentionSource> crossAttentionSource(
    const CrossKeys& keys, const std::vector<Tensor>& stepQueries, std::shared_ptr<Backend> backend)
{
    if (stepQueries.empty()) return nullptr;
    if (!keys.encoding) throw Error("cross-attention: no encoding");
    const std::vector<Tensor>& crossKeys = keys.encoding->crossKeys;
    const Shape& step = stepQueries.front().shape();
    const auto L = static_cast<int64_t>(crossKeys.size()), T = static_cast<int64_t>(stepQueries.size());
    if (step.size() != 3 || step[0] != L || L == 0 || crossKeys.front().rank() != 3
        || crossKeys.front().dim(0) != step[1] || crossKeys.front().dim(2) != step[2])
        throw Error("cross-attention: step queries of another shape than the encoding's " + std::to_string(L)
            + " layers of keys");
    const int64_t H = step[1], d = step[2];
    std::vector<Tensor> queries;
    for (int64_t l = 0; l < L; ++l) {
        Tensor layer({ H, T, d });
        for (int64_t t = 0; t < T; ++t) {
            const Tensor& q = stepQueries[static_cast<size_t>(t)];
            if (q.shape() != step) throw Error("cross-attention: decoder steps of different shapes");
            for (int64_t h = 0; h < H; ++h)
                std::copy_n(q.data() + (l * H + h) * d, d, layer.data() + (h * T + t) * d);
        }
        queries.push_back(std::move(layer));
    }
    AttentionOptions options; // every source key is visible to every step: no mask
    options.scale = keys.scale;
    return attentionSourceOn(
        std::move(backend), std::make_shared<const OwnedQueryKeys>(queries, crossKeys), std::move(options));
}

} // namespace attn
