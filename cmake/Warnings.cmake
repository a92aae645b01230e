# SPDX-License-Identifier: MIT
# as_set_warnings(target): the project's warning level on one target (third-party headers stay system includes).
function(as_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(AS_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
