// SPDX-License-Identifier: MIT
// Gold alignment files, Pharaoh (i-j, i?j) and NAACL (sent i j [S|P]).
#include "align/alignment.h"
#include "fuzz_target.h"

AS_FUZZ_TARGET(alignment)
{
    attn::readGoldAlignments(attn::fuzz::writeScratch("gold.align", data, size));
}
