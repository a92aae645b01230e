// SPDX-License-Identifier: MIT
#pragma once
// The threads the CPU products of packed weights share: started once, asleep between calls.
#include <cstdint>
#include <functional>

namespace attn {

/// Runs task(i) for i in [0, count) on every core (the calling thread takes part) and returns when all are done.
/// Calls from several threads take turns; a task must not call parallelFor itself.
void parallelFor(int64_t count, const std::function<void(int64_t)>& task);

} // namespace attn
