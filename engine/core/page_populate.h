// SPDX-License-Identifier: MIT
#pragma once
// Mapping the pages of a large fresh buffer before its first write.
#include <cstdint>

namespace attn {

/// Asks the kernel to map the whole pages inside [data, data + bytes) for writing now (MADV_POPULATE_WRITE, Linux
/// 5.14+), which the first write to each would otherwise do one page fault at a time. Threads may populate disjoint
/// ranges of one buffer together. Contents do not change. A kernel without it, or a range it cannot populate, leaves
/// the pages to fault as usual: this moves work, it never fails.
void populatePages(void* data, int64_t bytes);

} // namespace attn
