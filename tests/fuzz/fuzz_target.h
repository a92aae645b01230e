// SPDX-License-Identifier: MIT
#pragma once
// One fuzz target = one AS_FUZZ_TARGET(name) { ... } body. Built with clang and AS_BUILD_FUZZERS it becomes
// libFuzzer's LLVMFuzzerTestOneInput; otherwise it registers itself with the replay driver (replay_main.cpp), which
// runs saved inputs through it under any compiler. Inside a target an attn::Error is the expected answer to a bad
// file and is swallowed by the macro; anything else escaping (std::bad_alloc, a library's exception) is a finding.
#include "core/error.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace attn::fuzz {

using TargetFn = void (*)(const uint8_t* data, size_t size);
bool registerTarget(const char* name, TargetFn fn);

/// A per-process scratch folder, created on first use.
std::string scratchDir();
/// A per-process scratch file `name` holding `data` (loaders take paths; the name sets the kind they dispatch on).
std::string writeScratch(const std::string& name, const uint8_t* data, size_t size);

inline int runGuarded(TargetFn fn, const uint8_t* data, size_t size)
{
    try {
        fn(data, size);
    } catch (const attn::Error&) {
    }
    return 0;
}

} // namespace attn::fuzz

#ifdef AS_LIBFUZZER
#define AS_FUZZ_ENTRY(name)                                                                                            \
    extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)                                            \
    {                                                                                                                  \
        return attn::fuzz::runGuarded(fuzz_##name, data, size);                                                        \
    }
#else
#define AS_FUZZ_ENTRY(name)                                                                                            \
    [[maybe_unused]] static const bool registered_##name = attn::fuzz::registerTarget(#name, fuzz_##name);
#endif

#define AS_FUZZ_TARGET(name)                                                                                           \
    static void fuzz_##name(const uint8_t* data, size_t size);                                                         \
    AS_FUZZ_ENTRY(name)                                                                                                \
    static void fuzz_##name(const uint8_t* data, size_t size)
