// SPDX-License-Identifier: MIT
#pragma once
// An attention source that keeps its backend alive: results outlive the engine's choice of backend (a tab shows, and
// derives tiles from, what it computed before View > Compute backend chose another).
#include "attention_source/attention_source.h"
#include "backend/backend.h"

#include <memory>

namespace attn {

/// AttentionSource(store, options, backend) that holds `backend` for as long as the source lives. Null `backend`:
/// the CPU attention core. Throws Error as the AttentionSource constructor does.
std::shared_ptr<const AttentionSource> attentionSourceOn(
    std::shared_ptr<Backend> backend, std::shared_ptr<const QueryKeyStore> store, AttentionOptions options);

} // namespace attn
