# SPDX-License-Identifier: MIT
# cmake -DSPV=in.spv -DOUT=out.cpp -DNAME=name -P EmbedSpirv.cmake: writes `const uint32_t NAME_spv[]`.
file(READ ${SPV} hex HEX)
string(LENGTH "${hex}" nchars)
math(EXPR nbytes "${nchars} / 2")
# SPIR-V is a little-endian word stream: regroup bytes into 32-bit words.
string(REGEX REPLACE "(..)(..)(..)(..)" "0x\\4\\3\\2\\1u," words "${hex}")
string(REGEX REPLACE "((0x........u,){8})" "\\1\n" words "${words}")
file(WRITE ${OUT} "// Generated from ${SPV}\n#include <cstddef>\n#include <cstdint>\nnamespace attn::spirv {\nextern const uint32_t ${NAME}_spv[];\nextern const size_t ${NAME}_spv_size;\nconst uint32_t ${NAME}_spv[] = {\n${words}\n};\nconst size_t ${NAME}_spv_size = ${nbytes};\n}\n")
