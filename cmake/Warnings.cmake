# SPDX-License-Identifier: MIT
# as_set_warnings(target): the project's warning level on one target (third-party headers stay system includes).
function(as_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  # GCC 12 reports -Wrestrict inside libstdc++'s std::string when operator+ is inlined at -O3 (GCC bug 105651,
  # fixed in GCC 13): a false positive in library code, not ours.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  if(AS_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
