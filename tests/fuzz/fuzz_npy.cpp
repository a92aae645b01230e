// SPDX-License-Identifier: MIT
// .npy arrays as --pixel-values, --features and --tokens files read them (float and integer readers).
#include "core/npy.h"
#include "fuzz_target.h"

AS_FUZZ_TARGET(npy)
{
    const std::string path = attn::fuzz::writeScratch("input.npy", data, size);
    try {
        attn::readNpy(path);
    } catch (const attn::Error&) {
    }
    attn::Shape shape;
    attn::readNpyInts(path, &shape);
}
