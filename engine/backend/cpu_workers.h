// SPDX-License-Identifier: MIT
#pragma once
// The threads the CPU products of packed weights and the attention kernels share: started once, asleep between calls.
#include <cstdint>
#include <functional>

namespace attn {

/// Runs task(i) for i in [0, count) on every core (the calling thread takes part) and returns when all are done.
/// Calls from several threads take turns; a task must call neither this nor parallelForIfIdle.
void parallelFor(int64_t count, const std::function<void(int64_t)>& task);

/// parallelFor, except that while another thread's job holds the cores the tasks run on the calling thread instead
/// of waiting for their turn (the GUI thread computing a tile must not wait for the engine thread's forward).
void parallelForIfIdle(int64_t count, const std::function<void(int64_t)>& task);

} // namespace attn
