// SPDX-License-Identifier: MIT
#include "core/page_populate.h"

#include <sys/mman.h>
#include <unistd.h>

namespace attn {

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 // linux/mman.h since 5.14; Debian 12's glibc headers predate it
#endif

void populatePages(void* data, int64_t bytes)
{
    static const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto begin = (reinterpret_cast<uintptr_t>(data) + page - 1) / page * page;
    const auto end = (reinterpret_cast<uintptr_t>(data) + static_cast<uintptr_t>(bytes)) / page * page;
    if (bytes <= 0 || end <= begin) return;
    // An error (EINVAL on an older kernel) only means the pages fault in on first write, as without this call.
    static_cast<void>(madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE));
}

} // namespace attn
