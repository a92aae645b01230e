// SPDX-License-Identifier: MIT
#include "attention_source/backend_source.h"

#include <utility>

namespace attn {

namespace {

/// The backend is declared first, so that it is destroyed after the source that computes with it.
struct SourceWithBackend {
    SourceWithBackend(std::shared_ptr<Backend> b, std::shared_ptr<const QueryKeyStore> store, AttentionOptions options)
        : backend(std::move(b))
        , source(std::move(store), std::move(options), backend.get())
    {
    }
    std::shared_ptr<Backend> backend;
    AttentionSource source;
};

} // namespace

std::shared_ptr<const AttentionSource> attentionSourceOn(
    std::shared_ptr<Backend> backend, std::shared_ptr<const QueryKeyStore> store, AttentionOptions options)
{
    auto both = std::make_shared<const SourceWithBackend>(std::move(backend), std::move(store), std::move(options));
    return { both, &both->source }; // shares ownership of both
}

} // namespace attn
