# One INTERFACE target carries the project's warning flags; every tilelens target links it.
add_library(tilelens_warnings INTERFACE)
target_compile_options(tilelens_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                       -Wno-sign-conversion)
if(TILELENS_WERROR)
  target_compile_options(tilelens_warnings INTERFACE -Werror)
endif()
if(TILELENS_SANITIZE)
  target_compile_options(tilelens_warnings INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer)
  target_link_options(tilelens_warnings INTERFACE -fsanitize=address,undefined)
  # Programs linked as position-dependent: a sanitized PIE spends half of its start-up (0.49 s of
  # CPU for `tilelens --help`, against 0.22 s) relocating its 185 MB of code and ASan's globals,
  # and the tests start these programs thousands of times (the damaged-database test alone 1,040).
  # Shared libraries stay PIC.
  target_link_options(tilelens_warnings INTERFACE $<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-no-pie>)
endif()
# GCC 12 reports false -Wrestrict errors inside std::string concatenation at -O2/-O3
# (GCC bug 105329); the warning is disabled for that compiler only.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(tilelens_warnings INTERFACE -Wno-restrict)
endif()
